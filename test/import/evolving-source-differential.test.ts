/**
 * The nightly import of a source that changed since the last night (evolving-source.ts over messy-source.ts):
 * run 1 imports dump A, run 2 imports A' (users, channels and messages appended, display names and a
 * property changed, a user renamed, a user and a message gone, bodies corrected, members added and
 * dropped), in `mode: insert` or `upsert`, with the state folder of run 1 or a fresh one (the state lost).
 * Run 2's lines, counts, the platform read back over HTTP and its verification are held against the
 * oracle written from the docs. The seed picks the mode and the state folder. DIFF_SEEDS=1,2,... runs others.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, type ImportFixture } from './support.js';
import { diffSeeds, expectLineOutcomes, expectPlatformHolds, generateCase, writeCase } from './messy-source.js';
import { evolveRows, judgeRerun, type MessageTally } from './evolving-source.js';
import type { StageVerification } from '../../src/pipeline/verify/types.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(async () => {
  await f.close();
});

/** The CLI's exit code for a finished import (src/cli/commands/import.ts; README "Exit codes"). */
const exitCode = (report: RunReport) => (report.verification?.status === 'differences' ? 65 : report.totals.rejected > 0 ? 2 : 0);

/**
 * Each difference of the messages stage pairs at most one expected message with one platform message
 * (missing: expected only; extra: platform only; changed, misplaced, out-of-order: one of each).
 */
function expectMessageTally(found: StageVerification | undefined, oracle: MessageTally) {
  const d = found!.differences;
  expect({ expected: found!.expected, verified: found!.verified }, 'messages verified').toEqual({ expected: oracle.expected, verified: oracle.verified });
  const paired = d.changed + d.misplaced + d['out-of-order'];
  expect(d.missing + paired, 'expected messages in a difference').toBe(oracle.expected - oracle.verified);
  expect(d.extra + paired, 'platform messages in a difference').toBe(oracle.platformUnmatched);
}

describe.each(diffSeeds('2,3,4,5,24,29'))('a source that changed overnight, seed %i', (seed) => {
  const mode = seed % 2 === 0 ? 'insert' : 'upsert';
  const stateLost = Math.floor(seed / 2) % 2 === 1;
  it(`run 2 (${mode}, ${stateLost ? 'fresh' : 'same'} state folder) reports, holds and verifies what the oracle says`, async () => {
    const c = { ...generateCase(seed), mode } as const;
    const dir = join(f.dir, `seed-${seed}`);
    // Run 2 reuses run 1's config object, as a library caller running the same pipeline nightly does.
    const { config } = await writeCase(dir, c, `evolving-${seed}`);
    const first = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    await expectLineOutcomes(first, c);
    await expectPlatformHolds(f.client, c);

    const next = evolveRows(c.rows, seed);
    const oracle = judgeRerun(c, next.rows, mode);
    await writeCase(dir, oracle.case, `evolving-${seed}`);
    const second = await runImport({ config, stateDir: join(dir, stateLost ? 'state-lost' : 'state'), verify: { sample: 'auto' } }, { client: f.client });
    expect(second.totals.balanced).toBe(true);
    await expectLineOutcomes(second, oracle.case);
    await expectPlatformHolds(f.client, oracle.case);
    const verification = second.verification;
    expect(verification?.status).toBe('differences');
    const found = verification && 'stages' in verification ? Object.fromEntries(Object.entries(verification.stages).map(([stage, v]) => [stage, v.differences])) : {};
    expect(found).toMatchObject(oracle.differences);
    expectMessageTally(verification && 'stages' in verification ? verification.stages.messages : undefined, oracle.messages);
    expect(exitCode(second)).toBe(65);
  }, 120_000);
});
