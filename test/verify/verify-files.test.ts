import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/pipeline/state/atomic-file.js';
import { writeVerifyFiles } from '../../src/pipeline/verify/run-verify.js';
import { verificationJsonPieces } from '../../src/pipeline/verify/describe.js';
import { emptyDifferenceCounts, type Difference, type VerificationSummary } from '../../src/pipeline/verify/types.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'verify-files-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const summary = (status: VerificationSummary['status'], missing: number): VerificationSummary => ({
  status, counts: { ...emptyDifferenceCounts(), missing }, stages: {}, contentChecked: 0, durationMs: 1,
});
const missing = (key: string): Difference => ({ kind: 'missing', stage: 'messages', sourceKey: key, message: `message ${key} is missing` });

describe('verify.json and verify-differences.ndjson', () => {
  it('a verification stopped between its two files never leaves the earlier summary beside the new differences', async () => {
    await writeVerifyFiles(dir, summary('exact', 0), []);
    expect(JSON.parse(await readFile(join(dir, 'verify.json'), 'utf8'))).toMatchObject({ status: 'exact' });
    // The process dies once the differences are written (a kill -9 between the two files).
    let writes = 0;
    const dying: typeof writeFileAtomic = async (path, data) => {
      if (writes++ === 1) throw new Error('killed');
      await writeFileAtomic(path, data);
    };
    await expect(writeVerifyFiles(dir, summary('differences', 1), [missing('m1')], dying)).rejects.toThrow('killed');
    expect(await readFile(join(dir, 'verify-differences.ndjson'), 'utf8')).toContain('"m1"');
    expect(existsSync(join(dir, 'verify.json'))).toBe(false);
  });

  it('the differences file is written in pieces of bounded size: millions of differences (an import stopped half way) never make one string past what the runtime can hold', async () => {
    const many = Array.from({ length: 50_000 }, (_, i) => missing(`m${i}`));
    const pieces: number[] = [];
    const measuring: typeof writeFileAtomic = async (path, data) => {
      const parts = typeof data === 'string' || data instanceof Uint8Array ? [data] : [...data];
      if (path.endsWith('.ndjson')) pieces.push(...parts.map((p) => p.length));
      await writeFileAtomic(path, parts.length === 1 ? parts[0]! : (parts as string[]));
    };
    await writeVerifyFiles(dir, summary('differences', many.length), many, measuring);
    expect(Math.max(...pieces)).toBeLessThanOrEqual(1 << 20);
    const lines = (await readFile(join(dir, 'verify-differences.ndjson'), 'utf8')).split('\n');
    expect(lines).toHaveLength(many.length + 1);
    expect(JSON.parse(lines[49_999]!)).toEqual(many[49_999]);
  });
});

describe('verify --json', () => {
  const head = { pipeline: 'p', status: 'differences', counts: { missing: 3 } };
  it('is the same text as the whole object stringified, with none, one and many differences', () => {
    for (const n of [0, 1, 2500]) {
      const differences = Array.from({ length: n }, (_, i) => missing(`m${i}`));
      expect([...verificationJsonPieces(head, differences)].join('')).toBe(`${JSON.stringify({ ...head, differences }, null, 2)}\n`);
    }
  });

  it('comes in pieces of bounded size: millions of differences never make one string past what the runtime can hold', () => {
    const many = Array.from({ length: 50_000 }, (_, i) => missing(`m${i}`));
    expect(Math.max(...[...verificationJsonPieces(head, many)].map((p) => p.length))).toBeLessThanOrEqual(1 << 20);
  });
});
