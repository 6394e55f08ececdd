import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createZipWriter } from '../../fixtures/slack/generator/writers.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform } from '../slack-migration/support.js';

/**
 * An `mmctl export create` zip with its attachments (hand-made): the JSONL at the top and every uploaded
 * file under data/, where a person's own .jsonl upload (a log, a dataset) sits too.
 */
const line = (type: string, value: unknown) => JSON.stringify({ type, [type]: value });
const UPLOAD = 'data/20240301/teams/t1/channels/c1/users/u1/f1/events.jsonl';
const EXPORT = [
  JSON.stringify({ type: 'version', version: 1 }),
  line('team', { name: 'acme', display_name: 'Acme', type: 'O' }),
  line('channel', { team: 'acme', name: 'ops', display_name: 'Ops', type: 'O' }),
  line('user', { username: 'ana', email: 'ana@example.invalid', roles: 'system_user', teams: [{ name: 'acme', roles: 'team_user', channels: [{ name: 'ops', roles: 'channel_user' }] }] }),
  line('post', { team: 'acme', channel: 'ops', user: 'ana', type: '', message: 'the log of last night', props: {}, create_at: 1_709_280_000_000, edit_at: 0, attachments: [{ path: UPLOAD }] }),
].join('\n') + '\n';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
}, 30_000);
afterAll(() => f?.close());

describe('a Mattermost export zip whose attachments hold a .jsonl upload', () => {
  it('reads the export\'s own JSONL (the one outside data/) and imports the post with its file named', async () => {
    const zip = join(f.dir, 'export.zip');
    const writer = createZipWriter(zip);
    await writer.write('import.jsonl', EXPORT);
    await writer.write(UPLOAD, '{"event":"deploy"}\n{"event":"rollback"}\n');
    await writer.close();
    const { config } = await writePipeline(f.dir, `name: mattermost\nmattermost:\n  export: ${zip}\n`);
    const report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 1, imported: 1, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    const ops = (await readPlatform(f.client)).channels.find((c) => c.slackId === 'acme/ops')!;
    expect(ops.messages.map((m) => m.body)).toEqual([`the log of last night\n[file: events.jsonl] ${UPLOAD}`]);
  });
});
