import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { compareInt64 } from '../../src/shared/int64.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const ROOT_TS = '1600050000.000100';

/** A one-channel export with a thread; `edit` changes a channel message's and a reply's text (a re-made export). */
async function writeExport(dir: string, channel: string, edit: boolean): Promise<void> {
  await mkdir(join(dir, channel), { recursive: true });
  await writeFile(join(dir, 'users.json'), JSON.stringify([{ id: 'U1', team_id: 'TE', name: `${channel}-ana` }, { id: 'U2', team_id: 'TE', name: `${channel}-bo` }]));
  await writeFile(join(dir, 'channels.json'), JSON.stringify([{ id: 'C1', name: channel, members: ['U1', 'U2'] }]));
  await writeFile(join(dir, channel, '2020-09-14.json'), JSON.stringify([
    { type: 'message', ts: ROOT_TS, user: 'U1', text: 'the root', thread_ts: ROOT_TS, reply_count: 2 },
    { type: 'message', ts: '1600050001.000100', user: 'U2', text: edit ? 'a channel message, edited' : 'a channel message' },
    { type: 'message', ts: '1600100000.000100', user: 'U2', text: edit ? 'first reply, edited' : 'first reply', thread_ts: ROOT_TS },
    { type: 'message', ts: '1600100001.000100', user: 'U1', text: 'second reply', thread_ts: ROOT_TS },
  ]));
}

async function threadBodies(channelName: string): Promise<string[]> {
  const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === channelName)!;
  const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
  const thread = replyThreadIdOf(messages[0]!)!;
  return (await all(f.client.threads.messages(thread, { pageSize: 100 }))).map((m) => m.body ?? '');
}

const changedLines = async (runDir: string) =>
  (await readFile(join(runDir, 'changed', 'messages.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

/**
 * A Slack export re-made after a reply was edited: the reply in its thread holds the old text. It is a held
 * record with other content, as a changed channel message is: "changed, not applied" (skipped, listed) in
 * insert mode, patched in upsert mode; never counted as imported "already there".
 */
describe('a Slack thread reply edited between two exports', () => {
  it('is counted changed and listed, not imported, in insert mode', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-slack-editedreply-'));
    const exportDir = join(dir, 'export');
    await writeExport(exportDir, 'edit-insert', false);
    const { config } = await writePipeline(dir, `name: slack-edit-insert\nslack:\n  export: ${exportDir}\n`);
    const stateDir = join(dir, 'state');
    const first = await runImport({ config, stateDir, verify: {} }, { client: f.client });
    expect(first.stages.messages).toMatchObject({ read: 4, imported: 4, replies: 2 });

    await writeExport(exportDir, 'edit-insert', true);
    const second = await runImport({ config, stateDir, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ read: 4, imported: 2, skipped: 2, changed: 2, pending: 0, replies: 1, repliesHeld: 1 });
    expect(second.totals.balanced).toBe(true);
    const listed = await changedLines(second.runDir);
    expect(listed.map((l) => [l.sourceKey, l.applied])).toEqual([['TE/C1/1600050001.000100', false], ['TE/C1/1600100000.000100', false]]);
    expect(listed[1]!.differences).toEqual([expect.objectContaining({ field: 'body', platform: 'first reply', source: 'first reply, edited' })]);
    expect(await threadBodies('edit-insert')).toEqual(['first reply', 'second reply']);
  });

  it('is patched in upsert mode, counted imported and updated', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-slack-editedreply-'));
    const exportDir = join(dir, 'export');
    await writeExport(exportDir, 'edit-upsert', false);
    const { config } = await writePipeline(dir, `name: slack-edit-upsert\nslack:\n  export: ${exportDir}\noptions:\n  mode: upsert\n`);
    const stateDir = join(dir, 'state');
    await runImport({ config, stateDir, verify: {} }, { client: f.client });

    await writeExport(exportDir, 'edit-upsert', true);
    const second = await runImport({ config, stateDir, verify: {} }, { client: f.client });
    expect(second.stages.messages).toMatchObject({ read: 4, imported: 4, skipped: 0, updated: 2, pending: 0, replies: 2, repliesHeld: 2 });
    expect(second.verification).toMatchObject({ status: 'exact' });
    const listed = await changedLines(second.runDir);
    expect(listed.map((l) => [l.sourceKey, l.applied])).toEqual([['TE/C1/1600050001.000100', true], ['TE/C1/1600100000.000100', true]]);
    expect(await threadBodies('edit-upsert')).toEqual(['first reply, edited', 'second reply']);
  });
});
