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

/** Some exports write a deleted or unexported file as `null` in `files` (and so in other lists): Slack shows the message. */
describe('Slack messages whose files, attachments, reactions or blocks hold null entries', () => {
  it('are imported with the null entries left out and the real files kept, and verify exact', async () => {
    const file = { id: 'F1', name: 'plan.pdf', url_private: 'https://files.invalid/F1/plan.pdf' };
    const root = await writeExportFolder('chatport-slack-nulls-', {
      'users.json': [{ id: 'U1', team_id: 'TST', name: 'nulls-ana' }],
      'channels.json': [{ id: 'C1', name: 'nulls-general', members: ['U1'] }],
      'nulls-general/2020-09-14.json': [
        { type: 'message', ts: '1600100000.000100', user: 'U1', text: 'deleted file', files: [null] },
        { type: 'message', ts: '1600100001.000100', user: 'U1', text: 'one left', files: [file, null] },
        { type: 'message', ts: '1600100002.000100', user: 'U1', text: 'link', attachments: [null], reactions: [null], blocks: [null] },
      ],
    });
    const dir = join(f.dir, 'nulls');
    await mkdir(dir);
    const { config } = await writePipeline(dir, `name: slack-nulls\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 3, skipped: 0, rejected: 0 });
    expect(report.verification).toMatchObject({ status: 'exact' });
    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'nulls-general')!;
    const bodies = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).map((m) => m.body).sort();
    expect(bodies).toEqual(['deleted file', 'link', 'one left\n[file: plan.pdf] https://files.invalid/F1/plan.pdf']);
  });
});
