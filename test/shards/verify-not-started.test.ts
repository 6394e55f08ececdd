import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { chatportEnv, runCli, startImportFixture, type ImportFixture } from '../import/support.js';
import { setUpShardedRun, shardedCsvs } from './support.js';

/**
 * `verify --shards 2` started by a scheduler before shard 1 ever ran: nothing is wrong with the command,
 * the run is only not there yet. It must exit 75 (temporary: try again later), naming the shard not
 * started, not 64 (usage: fix your command). `status --shards 2` names the same shard as not started.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('verify --shards before every shard started', () => {
  it('exits 75 naming the shards not started; status --shards names them alike', { timeout: 120_000 }, async () => {
    const { config, path, state } = await setUpShardedRun(f, 'not-started', shardedCsvs('ns-', { users: 2, channels: 3, messages: 12 }), 'not-started', undefined, chatportEnv(f));
    await runImport({ config: { ...config, shard: { index: 0, count: 3 } }, stateDir: state, verify: false }, { client: f.client });
    const cli = (args: string[]) => runCli(args, chatportEnv(f));

    const verified = await cli(['verify', path, '--state', state, '--shards', '3']);
    expect(verified.code).toBe(75);
    expect(verified.stderr).toMatch(/shards 1, 2 of 3 have not started/);
    const json = await cli(['verify', path, '--state', state, '--shards', '3', '--json']);
    expect(json.code).toBe(75);
    expect(JSON.parse(json.stdout || json.stderr)).toMatchObject({ error: { code: 'SHARDS_NOT_STARTED', exitCode: 75, details: { notStarted: [1, 2] } } });

    const status = await cli(['status', path, '--state', state, '--shards', '3']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/shards 1, 2 of 3 have not started/);
    const statusJson = JSON.parse((await cli(['status', path, '--state', state, '--shards', '3', '--json'])).stdout) as { notStarted: number[]; waiting: number[] };
    expect(statusJson).toMatchObject({ notStarted: [1, 2], waiting: [1, 2] });
  });
});
