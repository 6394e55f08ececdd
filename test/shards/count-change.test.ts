import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport, type ImportRunDeps } from '../../src/pipeline/import/run-import.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { realSleep } from '../../src/shared/async.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { setUpShardedRun, shardedCsvs, shardRunner } from './support.js';

/**
 * A migration started split over 4 shards and resumed split over 3 (a Job's completions changed while it
 * was unfinished): a channel's shard depends on the count, so the 4 shards' unsent channels would be sent
 * by none and their runs never end. The new count is refused (64, FailIndex in deploy/) naming both counts,
 * unless `--restart` says to start over split otherwise; then the new count's other shards go on.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('a shard count other than the unfinished run\'s', () => {
  it('is refused as a usage error naming both counts; --restart starts over with the new count', async () => {
    const { config, state } = await setUpShardedRun(f, 'count', shardedCsvs('sc-', { users: 2, channels: 4, messages: 12 }), 'count-change');
    const run = shardRunner(f, config, state);
    await run(0, 4);
    await expect(run(0, 3)).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(/split over 4 shards .*unfinished.*shards 1, 2, 3 of 4 have not started.*--shards 4.*--restart/s) });
    await run(0, 3, { restart: true });
    await run(1, 3);
    // Now the 3 shards' run is the latest, unfinished: a shard of 4 is refused in turn.
    await expect(run(1, 4)).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(/split over 3 shards .*shard 2 of 3 has not started.*--shards 3/s) });
    await run(2, 3);
  });

  it('a dry run over the new count neither stands for the latest run nor is refused', async () => {
    const { config, state } = await setUpShardedRun(f, 'dry', shardedCsvs('sd-', { users: 2, channels: 4, messages: 12 }), 'count-dry');
    const run = shardRunner(f, config, state);
    await run(0, 4);
    await run(0, 3, { mode: 'dry-run' });
    await expect(run(1, 3)).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(/split over 4 shards/) });
  });

  it('an unsharded run and a sharded one of the same state folder are told apart alike', async () => {
    const { config, state } = await setUpShardedRun(f, 'unsharded', shardedCsvs('su-', { users: 2, channels: 4, messages: 12 }), 'count-unsharded');
    const whole = (c: PipelineConfig, extra = {}) => runImport({ config: c, stateDir: state, verify: false, ...extra }, { client: f.client });
    // Past --max-rejects: the unsharded run fails, unfinished.
    await expect(whole(config, { maxRejects: 0 })).rejects.toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED' });
    await expect(whole({ ...config, shard: { index: 0, count: 2 } })).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(/not split .*unfinished.*without --shard/s) });
    await whole(config);
  });

  it('two shards of different counts starting at once: one starts, the other waits for that start and is refused naming both counts', async () => {
    const { config, state } = await setUpShardedRun(f, 'at-once', shardedCsvs('so-', { users: 2, channels: 4, messages: 12 }), 'count-at-once');
    const start = (count: number, runStart: ImportRunDeps['runStart']) =>
      runImport({ config: { ...config, shard: { index: 0, count } }, stateDir: state, verify: false }, { client: f.client, runStart });
    const [aChecked, go, bWaits, bChecked] = [deferred(), deferred(), deferred(), deferred()];
    // A (shard 0 of 4) has checked the count and is held there, before it has started.
    const a = start(4, { afterCountCheck: async () => { aChecked.resolve(); await go.promise; } });
    await aChecked.promise;
    // B (shard 0 of 3) starts now: its check must wait for A's start, not pass meanwhile.
    const b = start(3, { afterCountCheck: async () => bChecked.resolve(), sleep: async (ms) => { bWaits.resolve(); await go.promise; await realSleep(ms); } });
    const first = await Promise.race([bWaits.promise.then(() => 'waited'), bChecked.promise.then(() => 'passed its check')]);
    go.resolve();
    const [ra, rb] = await Promise.allSettled([a, b]);
    expect(first).toBe('waited');
    expect(ra.status).toBe('fulfilled');
    expect(rb).toMatchObject({ status: 'rejected', reason: { code: 'USAGE', message: expect.stringMatching(/split over 4 shards .*unfinished.*this shard is one of 3/s) } });
  });
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
