import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/pipeline/state/atomic-file.js';
import { writeVerifyFiles } from '../../src/pipeline/verify/run-verify.js';
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
});
