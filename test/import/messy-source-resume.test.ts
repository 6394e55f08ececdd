/**
 * The import on messy CSV (messy-source.ts), SIGKILLed at seeded points of its journal and resumed each
 * time: the run that finishes must say, line by line, what an uninterrupted run says, and the platform must
 * hold exactly what the oracle says (nothing lost, nothing twice, nothing in the wrong place).
 * DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../src/pipeline/state/events.js';
import { chatportProcess, countEvents, journalEvents } from '../helpers/cli-process.js';
import { rng } from '../helpers/rng.js';
import { startImportFixture, type ImportFixture } from './support.js';
import { diffSeeds, expectLineOutcomes, expectPlatformHolds, generateCase, writeCase, type RunFiles } from './messy-source.js';

let f: ImportFixture;
beforeAll(async () => {
  // Slow jobs, so that a kill lands while jobs are in flight.
  f = await startImportFixture({ jobs: { minDurationMs: 40 } });
});
afterAll(() => f.close());

type KillPoint = (events: JournalEvent[]) => boolean;

/** Two kill points in journal order, drawn from the seed: one in the users or channels stage, one mid-messages. */
function killPoints(seed: number): KillPoint[] {
  const random = rng(seed * 7919);
  const early: KillPoint[] = [
    (e) => countEvents(e, 'part-submitted', 'users') >= 1,
    (e) => countEvents(e, 'stage-done', 'users') >= 1,
    (e) => countEvents(e, 'part-submitted', 'channels') >= 1,
  ];
  const submitted = 1 + Math.floor(random() * 6);
  const done = 1 + Math.floor(random() * 8);
  const late: KillPoint[] = [(e) => countEvents(e, 'part-submitted', 'messages') >= submitted, (e) => countEvents(e, 'chunk-done', 'messages') >= done];
  return [early[Math.floor(random() * early.length)]!, late[Math.floor(random() * late.length)]!];
}

describe.each(diffSeeds('3,5'))('messy input killed and resumed, seed %i', (seed) => {
  it('ends line by line as an uninterrupted run, with exactly the oracle on the platform', async () => {
    const c = generateCase(seed);
    const dir = join(f.dir, `killed-${seed}`);
    const { path } = await writeCase(dir, c, `messy-killed-${seed}`);
    const state = join(dir, 'state');
    const run = (killWhen?: KillPoint) => chatportProcess(['import', path, '--state', state, '--json'], f.env, killWhen && (async () => killWhen(await journalEvents(state))));

    for (const point of killPoints(seed)) expect((await run(point)).signal).toBe('SIGKILL');
    const final = await run();
    // 2: completed with rejects (the messy input has some).
    expect(final.code, final.stderr).toBe(2);
    const report = JSON.parse(final.stdout) as RunFiles & { status: string; attempt: number; totals: { balanced: boolean } };
    expect(report.attempt).toBe(3);
    expect(report.totals.balanced).toBe(true);
    await expectLineOutcomes(report, c);
    await expectPlatformHolds(f.client, c);
  }, 180_000);
});
