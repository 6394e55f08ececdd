import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { readShardedStatus } from '../../src/pipeline/shards/combined-status.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { setUpShardedRun, shardedCsvs } from './support.js';

/**
 * Every shard imports the users; the combined view counts them once. With shard 0 not started yet (or still
 * to write its first report) the users shard 1 imported must still be counted, not left out of the run as one.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('status --shards before shard 0 ran', () => {
  it('counts the users once, from a shard that ran', async () => {
    const { config, state } = await setUpShardedRun(f, 'users-once', shardedCsvs('cu-', { users: 3, channels: 4, messages: 12 }), 'combined-users');
    await runImport({ config: { ...config, shard: { index: 1, count: 2 } }, stateDir: state, verify: false }, { client: f.client });
    const view = await readShardedStatus(state, 2);
    expect(view.notStarted).toEqual([0]);
    expect(view.combined.stages.users).toMatchObject({ read: 3, imported: 3 });
    await runImport({ config: { ...config, shard: { index: 0, count: 2 } }, stateDir: state, verify: false }, { client: f.client });
    expect((await readShardedStatus(state, 2)).combined.stages.users).toMatchObject({ read: 3, imported: 3 });
  });
});
