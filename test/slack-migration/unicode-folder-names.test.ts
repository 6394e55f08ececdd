import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/**
 * channels.json names a channel in composed form (NFC, as Slack writes it); an export unpacked and packed
 * again on macOS names its folder decomposed (NFD). Both are the same name: the messages are the channel's.
 */
describe('a Slack conversation folder whose name is the channel name in another Unicode normal form', () => {
  it('is read as that channel\'s folder, not skipped as a folder no list names', async () => {
    const name = 'café-☕';
    const root = await writeExportFolder('chatport-slack-nfd-', {
      'users.json': [{ id: 'U1', team_id: 'TN', name: 'nfd-ana' }],
      'channels.json': [{ id: 'C1', name: name.normalize('NFC'), members: ['U1'] }],
      [`${name.normalize('NFD')}/2020-09-14.json`]: [{ type: 'message', ts: '1600100000.000100', user: 'U1', text: 'coffee talk' }],
    });
    await mkdir(join(f.dir, 'nfd'));
    const { config } = await writePipeline(join(f.dir, 'nfd'), `name: slack-nfd\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(f.dir, 'nfd', 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 1, imported: 1, rejected: 0, skipped: 0 });
    expect(report.verification).toMatchObject({ status: 'exact' });

    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.properties?.chatportKey === 'TN/C1')!;
    expect((await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).map((m) => m.body)).toEqual(['coffee talk']);
  });
});
