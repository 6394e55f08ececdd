import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { chatportEnv, generateCsvs, generatedPipeline, runCli, startImportFixture, writeCsvs, writeInput, writePipeline, type ImportFixture } from '../import/support.js';

/**
 * A run that stopped before its end (here past --max-rejects; kill -9 leaves the same journal) has not sent
 * everything: `chatport verify` on its state folder finds the rest missing and must say the run is yet to be
 * resumed, as `verify --shards` says of a shard, so the differences are not taken for lost data.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('verify after a run that has not ended', () => {
  it('names the unfinished run before the missing records, until it is resumed', async () => {
    const dir = join(f.dir, 'unfinished-run');
    const csv = generateCsvs({ users: 2, channels: 2, messages: 30 }, 'vr-');
    await writeCsvs(dir, csv);
    // Row m20's body is empty: with --max-rejects 0 the messages stage stops there.
    await writeInput(dir, 'messages.csv', csv.messages.replace('message number 20\n', '\n'));
    const { path, config } = await writePipeline(dir, generatedPipeline('verify-unfinished-run', 'chunkRecords: 5\n  concurrency: 1'));
    const state = join(dir, 'state');
    await expect(runImport({ config, stateDir: state, maxRejects: 0, verify: false }, { client: f.client })).rejects.toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED' });

    const stopped = await runCli(['verify', path, '--state', state], chatportEnv(f));
    expect(stopped.code).toBe(65);
    const [, note] = stopped.stdout.split('\n');
    expect(note).toMatch(/^note: the latest run \(\w+\) has not ended \(killed, failed or stopped\): what it has not sent yet shows as missing; run the same import again/);
    const json = JSON.parse((await runCli(['verify', path, '--state', state, '--json'], chatportEnv(f))).stdout) as { unfinishedRun?: string };
    expect(json.unfinishedRun).toMatch(/^\w+$/);

    await runImport({ config, stateDir: state, verify: false }, { client: f.client });
    const resumed = await runCli(['verify', path, '--state', state], chatportEnv(f));
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).not.toContain('note:');
    // Three CLI processes through tsx: about 26 s alone on a loaded 2-core machine.
  }, 120_000);
});
