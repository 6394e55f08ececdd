import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { findShardRuns } from '../../src/pipeline/shards/shard-runs.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { setUpShardedRun, shardedCsvs } from './support.js';

/**
 * One shard of two fails (past --max-rejects) while the other ends. `verify --shards 2` then finds that
 * shard's unsent messages missing; it must say which shard has yet to be resumed, so the differences are
 * not taken for a loss of data, and say nothing once the shard ran again.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('verify --shards after one shard failed', () => {
  it('names the shard whose latest run has not ended, until it is resumed', async () => {
    const { config, state } = await setUpShardedRun(f, 'unfinished', shardedCsvs('vu-', { users: 3, channels: 4, messages: 40 }), 'verify-unfinished', 'chunkRecords: 10\n  concurrency: 2');
    // The shard of c1 holds the row with an empty body.
    const failing = shardOfKey('c1', 2);
    await runImport({ config: { ...config, shard: { index: 1 - failing, count: 2 } }, stateDir: state, verify: false }, { client: f.client });
    await expect(runImport({ config: { ...config, shard: { index: failing, count: 2 } }, stateDir: state, maxRejects: 0, verify: false }, { client: f.client })).rejects.toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED' });
    expect((await findShardRuns(state, 2)).unfinished).toEqual([failing]);

    await runImport({ config: { ...config, shard: { index: failing, count: 2 } }, stateDir: state, verify: false }, { client: f.client });
    expect((await findShardRuns(state, 2)).unfinished).toBeUndefined();
  });
});
