import { compareInt64 } from '../../src/shared/int64.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { all, chatportEnv, generateCsvs, generatedPipeline, runCli, startImportFixture, writePipeline, type ImportFixture, writeCsvs } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** Every message body on the platform, per channel name, in order. */
async function platformMessages(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const channel of await all(f.client.channels.list({ pageSize: 100 })))
    out[channel.name] = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id)).map((m) => m.body ?? '');
  return out;
}

describe('a pipeline renamed between runs', () => {
  it('is refused on its old state folder with the hint, continues with `id: <old>` and imports nothing twice; a fresh folder without the id adds no copy either', async () => {
    const dir = join(f.dir, 'rename');
    const csv = generateCsvs({ users: 2, channels: 2, messages: 12 }, 'ren-');
    await writeCsvs(dir, csv);
    const state = join(dir, 'state');
    const before = await writePipeline(dir, generatedPipeline('ren-old'));
    expect((await runImport({ config: before.config, stateDir: state }, { client: f.client })).status).toBe('succeeded');
    const imported = await platformMessages();
    expect(Object.values(imported).flat()).toHaveLength(12);
    expect(JSON.parse(await readFile(join(state, 'pipeline.json'), 'utf8'))).toEqual({ id: 'ren-old', name: 'ren-old' });

    // Renamed, same state folder: refused before anything is sent, saying how to continue.
    const renamed = await writePipeline(dir, generatedPipeline('ren-new'));
    const refused = await runImport({ config: renamed.config, stateDir: state }, { client: f.client }).then(() => undefined, (e: unknown) => e);
    expect(refused).toMatchObject({ code: 'STATE_FOREIGN', details: { owner: 'ren-old', pipeline: 'ren-new' } });
    expect(exitCodeFor(refused)).toBe(ExitCode.CONFIG);
    expect((refused as Error).message).toContain('add `id: ren-old` to the pipeline file');
    expect(await platformMessages()).toEqual(imported);
    // `chatport status` refuses the folder likewise, rather than show the old pipeline's run as this one's.
    const status = await runCli(['status', renamed.path, '--state', state], chatportEnv(f));
    expect(status.code).toBe(ExitCode.CONFIG);
    expect(status.stderr).toContain('belongs to pipeline "ren-old"');
    expect(status.stdout).not.toContain('last report');

    // With the old id the run goes on: every record is found again, nothing is sent twice.
    const kept = await writePipeline(dir, generatedPipeline('ren-new').replace('name: ren-new\n', 'name: ren-new\nid: ren-old\n'));
    const again = await runImport({ config: kept.config, stateDir: state }, { client: f.client });
    expect(again.status).toBe('succeeded');
    expect(again.totals).toMatchObject({ read: 16, imported: 16, rejected: 0 });
    expect(await platformMessages()).toEqual(imported);
    expect(JSON.parse(await readFile(join(state, 'pipeline.json'), 'utf8'))).toEqual({ id: 'ren-old', name: 'ren-new' });

    // Renamed without the id on a fresh state folder: another pipeline as far as the platform can tell. Its
    // users and channels are the old ones' names (taken), so none is created and no message has a channel.
    const fresh = await runImport({ config: renamed.config, stateDir: join(dir, 'state-fresh') }, { client: f.client });
    expect(fresh.stages.messages).toMatchObject({ read: 12, imported: 0, rejected: 12 });
    expect(await platformMessages()).toEqual(imported);
  });
});
