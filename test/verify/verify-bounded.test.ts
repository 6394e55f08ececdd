import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/index.js';
import { generateCsvs, generatedPipeline, startImportFixture, writeCsvs, writeInput, writePipeline, type ImportFixture } from '../import/support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const FAST_EXPORT = { exportWait: { pollIntervalMs: 20, timeoutMs: 120_000 } };
const brief = (d: { kind: string; sourceKey?: string; position?: { line?: number }; platformId?: string }) => `${d.kind} ${d.sourceKey ?? d.platformId} ${d.position?.line ?? '-'}`;

describe('verification in bounded memory', () => {
  it('keeps a few differences in memory and spills the rest, and still writes every one in source order', async () => {
    const dir = join(f.dir, 'bounded');
    const csv = generateCsvs({ users: 3, channels: 3, messages: 30 }, 'bounded-');
    await writeCsvs(dir, csv);
    const { config } = await writePipeline(dir, generatedPipeline('bounded'), f.env);
    expect((await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client })).status).toBe('succeeded');
    // The source since: m17 gone (extra on the platform), m8 longer (changed), n1 and n2 new (missing), m5 at
    // the end of c0 (misplaced: the platform holds it in c2; a missing message with no platform message near,
    // found equal to an extra as the second read passes it).
    const lines = csv.messages.trimEnd().split('\n');
    const m5 = lines.find((line) => line.startsWith('m5,'))!.replace(',c2,', ',c0,');
    const edited = [...lines, m5].flatMap((line, at) => {
      if (line.startsWith('m17,') || (line.startsWith('m5,') && at < lines.length)) return [];
      if (line.startsWith('m8,')) return [`${line} edited`];
      if (line.startsWith('m2,')) return [line, 'n1,c0,bounded-user1,a message the platform never got'];
      if (line.startsWith('m20,')) return [line, 'n2,c1,bounded-user2,another one it never got'];
      return [line];
    });
    await writeInput(dir, 'messages.csv', `${edited.join('\n')}\n`);

    const whole = await runVerify({ config, sample: 0, outDir: join(dir, 'whole'), ...FAST_EXPORT }, { client: f.client });
    const bounded = await runVerify({ config, sample: 0, outDir: join(dir, 'bounded'), keptDifferences: 3, differencesBudgetBytes: 1, ...FAST_EXPORT }, { client: f.client });
    const all = (await readFile(join(dir, 'bounded', 'verify-differences.ndjson'), 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l) as { kind: string });
    expect(all.map(brief)).toEqual(['missing n1 5', 'changed m8 10', 'missing n2 22', 'misplaced m5 32', `extra ${whole.differences[4]!.platformId} -`]);
    expect(await readFile(join(dir, 'bounded', 'verify-differences.ndjson'), 'utf8')).toBe(await readFile(join(dir, 'whole', 'verify-differences.ndjson'), 'utf8'));
    expect(whole.differences).toEqual(all);
    // Only the first three in memory and in verify.json; the counts are of all five.
    expect(bounded.differences).toEqual(all.slice(0, 3));
    expect([...bounded.allDifferences()]).toEqual(all);
    const summary = JSON.parse(await readFile(join(dir, 'bounded', 'verify.json'), 'utf8')) as { counts: unknown; differences: unknown[] };
    expect(summary.differences).toEqual(all.slice(0, 3));
    expect(summary.counts).toEqual({ missing: 2, extra: 1, misplaced: 1, 'out-of-order': 0, changed: 1 });
    expect(bounded.summary.stages.messages).toEqual(whole.summary.stages.messages);

    // Without a run folder the rest goes to a temp file, read back by `--json`, removed by close().
    const before = new Set(await readdir(tmpdir()));
    const loose = await runVerify({ config, sample: 0, keptDifferences: 2, differencesBudgetBytes: 1, ...FAST_EXPORT }, { client: f.client });
    const temp = (await readdir(tmpdir())).filter((n) => n.startsWith('chatport-verify-differences-') && !before.has(n));
    expect(temp).toHaveLength(1);
    expect(loose.differences).toEqual(all.slice(0, 2));
    expect([...loose.allDifferences()]).toEqual(all);
    await loose.close();
    expect(existsSync(join(tmpdir(), temp[0]!))).toBe(false);
  });
});
