/**
 * The Slack mapping's own skips (edit events, empty messages, system messages under `systemMessages: skip`,
 * records that are no message, stray JSON files in a conversation folder, folders of no conversation) are
 * listed in the run folder's skipped/messages.ndjson, one line each, as many as the report counts skipped.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { skippedLines, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe('a Slack migration\'s built-in skips', () => {
  it('are each listed with position, rule -1, reason and the message', async () => {
    const changed = { type: 'message', subtype: 'message_changed', ts: '1600100001.000100', message: { text: 'edited' } };
    const empty = { type: 'message', ts: '1600100002.000100', user: 'U1', text: '' };
    const join_ = { type: 'message', subtype: 'channel_join', ts: '1600100003.000100', user: 'U1', text: '<@U1> has joined the channel' };
    const root = await writeExportFolder('chatport-slack-skipped-', {
      'users.json': [{ id: 'U1', team_id: 'TST', name: 'skl-ana' }],
      'channels.json': [{ id: 'C1', name: 'skl-general', members: ['U1'] }],
      'skl-general/2020-09-14.json': [
        { type: 'message', ts: '1600100000.000100', user: 'U1', text: 'kept' },
        changed,
        empty,
        join_,
        { type: 'message', ts: '1600100004.000100', user: 'U1', text: 'kept too' },
      ],
      'skl-general/2020-09-14 2.json': [{ type: 'message', ts: '1600100100.000100', user: 'U1', text: 'in a copy' }],
      'nobody/2020-09-14.json': [{ type: 'message', ts: '1600100200.000100', user: 'U1', text: 'a' }, { type: 'message', ts: '1600100201.000100', user: 'U1', text: 'b' }],
    });
    const dir = join(f.dir, 'slack-skipped');
    await mkdir(dir);
    const { config } = await writePipeline(dir, `name: slack-skipped\nslack:\n  export: ${root}\n  systemMessages: skip\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ imported: 2, skipped: 6, rejected: 0 });
    expect(report.verification).toMatchObject({ status: 'exact' });

    const lines = await skippedLines(report.runDir, 'messages');
    expect(lines).toHaveLength(report.stages.messages!.skipped);
    expect(report.totals.skipped).toBe(lines.length);
    const day = (file: string) => expect.stringContaining(file);
    expect(lines).toEqual(expect.arrayContaining([
      { stage: 'messages', file: day('skl-general/2020-09-14 2.json'), index: 0, rule: -1, because: expect.stringContaining('is not a day file') },
      { stage: 'messages', file: day('skl-general/2020-09-14.json'), index: 1, rule: -1, because: expect.stringContaining('edit event message_changed'), record: expect.objectContaining({ subtype: 'message_changed', ts: changed.ts }) },
      { stage: 'messages', file: day('skl-general/2020-09-14.json'), index: 2, rule: -1, because: expect.stringContaining('empty message'), record: expect.objectContaining({ ts: empty.ts }) },
      { stage: 'messages', file: day('skl-general/2020-09-14.json'), index: 3, rule: -1, because: 'system message: channel_join', record: expect.objectContaining({ ts: join_.ts }) },
      { stage: 'messages', file: day('nobody/2020-09-14.json'), index: 0, rule: -1, because: expect.stringContaining('belongs to no conversation') },
      { stage: 'messages', file: day('nobody/2020-09-14.json'), index: 1, rule: -1, because: expect.stringContaining('belongs to no conversation') },
    ]));
  }, 60_000);
});
