import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findShardRuns } from '../../src/pipeline/shards/shard-runs.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { setUpShardedRun, shardedCsvs, shardRunner } from './support.js';

/**
 * A run split over 4 shards of which two ran, then started over split over 3 (--restart) that all ran. The shards 2
 * and 3 of 4 will never start: `verify --shards 4` answering "not started, try again later" (75) would have
 * a scheduler retry it for ever. It is the command that is out of date: a usage error (64) naming the
 * later count, as `status --shards 4` names it.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('verify --shards with the old count after the count was changed', () => {
  it('is refused as a usage error naming the later count, not "try again later"', async () => {
    const { config, state } = await setUpShardedRun(f, 'changed', shardedCsvs('cc-', { users: 2, channels: 4, messages: 12 }), 'count-changed');
    const run = shardRunner(f, config, state);
    for (const index of [0, 1]) await run(index, 4);
    await expect(findShardRuns(state, 4)).rejects.toMatchObject({ code: 'SHARDS_NOT_STARTED' });
    // The unfinished 4 shards' run is given up: started over split over 3 (count-change.test.ts).
    for (const index of [0, 1, 2]) await run(index, 3, { restart: index === 0 });
    await expect(findShardRuns(state, 4)).rejects.toMatchObject({ code: 'USAGE', message: expect.stringMatching(/shards 2, 3 of 4 have not started .*a run split over 3 shards .* started since: verify --shards 3/) });
    expect((await findShardRuns(state, 3)).unfinished).toBeUndefined();
  });
});
