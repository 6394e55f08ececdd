import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { readShardedStatus, type ShardedStatus } from '../../src/pipeline/shards/combined-status.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { setUpShardedRun, shardedCsvs } from './support.js';

/**
 * A shard fails (past --max-rejects) and the scheduler starts it again. While that second attempt runs (or
 * after it was killed), the failed report of the first attempt is still the latest report on disk:
 * `status --shards` must not go on saying "failed: start it again" of a shard already resumed, but that
 * it is still to finish.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('status --shards while a failed shard is being resumed', () => {
  it('says unfinished, not failed, while the next attempt runs', async () => {
    const { config, state } = await setUpShardedRun(f, 'resumed', shardedCsvs('sr-', { users: 3, channels: 4, messages: 40 }), 'status-resumed', 'chunkRecords: 10\n  concurrency: 2');
    const failing = shardOfKey('c1', 2); // holds the row with an empty body
    await runImport({ config: { ...config, shard: { index: 1 - failing, count: 2 } }, stateDir: state, verify: false }, { client: f.client });
    const shard = { index: failing, count: 2 };
    await expect(runImport({ config: { ...config, shard }, stateDir: state, maxRejects: 0, verify: false }, { client: f.client })).rejects.toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED' });
    expect((await readShardedStatus(state, 2)).state).toBe('failed');

    let midway: ShardedStatus | undefined;
    let reading: Promise<void> | undefined;
    const resumed = await runImport({ config: { ...config, shard }, stateDir: state, verify: false }, {
      client: f.client,
      onProgress: () => {
        reading ??= readShardedStatus(state, 2).then((s) => void (midway = s));
      },
    });
    await reading;
    expect(resumed.attempt).toBe(2);
    expect(midway).toMatchObject({ state: 'unfinished', waiting: [failing], notStarted: [] });
    expect((await readShardedStatus(state, 2)).state).toBe('done');
  });
});
