import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShardedStatus } from '../../src/pipeline/shards/combined-status.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { chatportProcess, countEvents, journalEvents } from '../helpers/cli-process.js';
import { generatedPipeline, startImportFixture, writeCsvs, writePipeline, type ImportFixture } from '../import/support.js';
import { expectedBodies, platformBodies, shardState, shardedCsvs } from './support.js';

/**
 * Three `chatport import` processes, each told its shard the way its scheduler would (a flag, a Kubernetes
 * Indexed Job's JOB_COMPLETION_INDEX, an AWS Batch array job's variables). One is SIGKILLed mid-messages and
 * started again: the platform then holds exactly the input, `status --shards 3` adds the shards up and
 * `verify --shards 3` finds the whole pipeline exact.
 */
let f: ImportFixture;
const csv = shardedCsvs('k-');
let pipeline: string;
let state: string;

beforeAll(async () => {
  // Slow jobs, so that the kill lands while jobs are in flight.
  f = await startImportFixture({ jobs: { minDurationMs: 40 } });
  await writeCsvs(f.dir, csv);
  pipeline = (await writePipeline(f.dir, generatedPipeline('killed-shards', 'chunkRecords: 15\n  concurrency: 2'))).path;
  state = join(f.dir, 'state');
});
afterAll(() => f?.close());

const importShard = (how: { args?: string[]; env?: Record<string, string> }, killWhen?: () => Promise<boolean>) =>
  chatportProcess(['import', pipeline, '--state', state, '--json', ...(how.args ?? [])], { ...f.env, ...how.env }, killWhen);

describe('three shard processes, one killed and resumed', () => {
  it('leave exactly the input on the platform, add up in status and verify as one', async () => {
    // The killed shard must have messages to be killed among.
    const victim = shardOfKey('c0', 3);
    const how: Array<{ args?: string[]; env?: Record<string, string> }> = [
      { args: ['--shard', '0/3'] },
      { args: ['--shards', '3'], env: { JOB_COMPLETION_INDEX: '1' } },
      { env: { AWS_BATCH_JOB_ARRAY_INDEX: '2', AWS_BATCH_JOB_ARRAY_SIZE: '3' } },
    ];
    const victimState = shardState(state, victim, 3);
    const killedMidMessages = async () => countEvents(await journalEvents(victimState), 'chunk-done', 'messages') >= 2;
    const first = await Promise.all(how.map((h, i) => importShard(h, i === victim ? killedMidMessages : undefined)));
    expect(first[victim]!.signal).toBe('SIGKILL');
    // The two bad rows are rejected by the shards of the channels they name (exit 2), once each.
    const exitOf = (i: number) => (i === shardOfKey('c-none', 3) || i === shardOfKey('c1', 3) ? ExitCode.COMPLETED_WITH_REJECTS : ExitCode.OK);
    for (const [i, ran] of first.entries()) if (i !== victim) expect(ran.code, ran.stderr).toBe(exitOf(i));

    const midway = JSON.parse((await chatportProcess(['status', pipeline, '--state', state, '--shards', '3', '--json'], f.env)).stdout) as ShardedStatus;
    expect(midway.state).toBe('unfinished');
    expect(midway.waiting).toEqual([victim]);

    const resumed = await importShard(how[victim]!);
    expect(resumed.code).toBe(exitOf(victim));
    expect(JSON.parse(resumed.stdout)).toMatchObject({ attempt: 2, shard: { index: victim, count: 3 } });

    expect(await platformBodies(f.client, 'k-')).toEqual(expectedBodies(csv));

    const status = await chatportProcess(['status', pipeline, '--state', state, '--shards', '3', '--json'], f.env);
    const view = JSON.parse(status.stdout) as ShardedStatus;
    expect(view.state).toBe('done');
    expect(view.combined.stages).toMatchObject({ users: { read: 6, imported: 6 }, channels: { read: 7, imported: 7 }, messages: { read: 702, imported: 700, rejected: 2 } });
    expect(view.combined.totals.balanced).toBe(true);

    const text = await chatportProcess(['status', pipeline, '--state', state, '--shards', '3'], f.env);
    expect(text.stdout).toContain('3 shards');
    expect(text.stdout).toContain('done: every shard ended');

    const verified = await chatportProcess(['verify', pipeline, '--state', state, '--shards', '3'], f.env);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.stdout).toContain('3 shards');
  }, 240_000);
});
