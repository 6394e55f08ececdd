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

const ROOT_TS = '1600000000.000100';
const dayOfReply = (text: string) => JSON.stringify([
  { type: 'message', ts: '1600100000.000100', user: 'U2', text, thread_ts: ROOT_TS },
  { type: 'message', ts: '1600100001.000100', user: 'U1', text: 'plain' },
]);

/**
 * Run 1 of an export whose reply's root is before its first day (imported in its channel, `rootMissing`),
 * someone replying to that copy by hand; then the export re-made with the root's day (`reply` its text then).
 */
async function rootMissingCopyRepliedTo(channel: string, mode: 'insert' | 'upsert', reply: string) {
  const exportDir = await mkdtemp(join(tmpdir(), 'chatport-slack-orphan-replied-'));
  await writeFile(join(exportDir, 'users.json'), JSON.stringify([{ id: 'U1', team_id: 'TE', name: `${channel}-ana` }, { id: 'U2', team_id: 'TE', name: `${channel}-bo` }]));
  await writeFile(join(exportDir, 'channels.json'), JSON.stringify([{ id: 'C1', name: channel, members: ['U1', 'U2'] }]));
  await mkdir(join(exportDir, channel));
  await writeFile(join(exportDir, channel, '2020-09-14.json'), dayOfReply('the reply'));
  const dir = join(f.dir, channel);
  await mkdir(dir);
  const { config } = await writePipeline(dir, `name: ${channel}\noptions: { mode: ${mode} }\nslack:\n  export: ${exportDir}\n`);
  const state = join(dir, 'state');
  expect((await runImport({ config, stateDir: state }, { client: f.client })).stages.messages).toMatchObject({ orphans: 1 });
  const copy = (await channelMessages(channel)).find((m) => m.body === 'the reply')!;
  await f.client.threads.send(replyThreadIdOf(copy)!, { type: 'TEXT', body: 'by hand', user: { username: `${channel}-ana` } });
  await writeFile(join(exportDir, channel, '2020-09-13.json'), JSON.stringify([{ type: 'message', ts: ROOT_TS, user: 'U1', text: 'the root', thread_ts: ROOT_TS, reply_count: 1 }]));
  await writeFile(join(exportDir, channel, '2020-09-14.json'), dayOfReply(reply));
  return { config, state, exportDir };
}

async function channelMessages(name: string) {
  const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === name)!;
  return (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
}

const threadFacts = (m: { properties?: unknown }) => (m.properties as { source: { thread: unknown } }).source.thread;
const changedFile = (runDir: string) => readFile(join(runDir, 'changed', 'messages.ndjson'), 'utf8').catch(() => '');
const patches = () => f.sandbox.requests().filter((r) => r.method === 'PATCH');

/**
 * A Slack reply imported in its channel (`rootMissing`) that someone replied to by hand stays there when
 * its root appears (docs/threads.md "Moved orphans"). That copy's placement facts differ from its source's
 * by nature, as for a copy that is moved: they are not a change of the reply.
 */
describe('a Slack rootMissing copy with replies of its own, its root appearing later', () => {
  it('insert: unchanged, it stays an orphan, not counted or listed changed, on every run', async () => {
    const { config, state } = await rootMissingCopyRepliedTo('orw-insert', 'insert', 'the reply');
    for (const run of [2, 3]) {
      const report = await runImport({ config, stateDir: state }, { client: f.client });
      expect({ run, counts: report.stages.messages }).toMatchObject({ run, counts: { read: 3, imported: 3, skipped: 0, changed: 0, orphans: 1, pending: 0 } });
      expect(await changedFile(report.runDir)).toBe('');
    }
  });

  it('upsert: unchanged, nothing is patched (its rootMissing fact is kept); edited, only its body is', async () => {
    const { config, state, exportDir } = await rootMissingCopyRepliedTo('orw-upsert', 'upsert', 'the reply');
    f.sandbox.clearRequests();
    const unchanged = await runImport({ config, stateDir: state }, { client: f.client });
    expect(unchanged.stages.messages).toMatchObject({ read: 3, imported: 3, updated: 0, orphans: 1, pending: 0 });
    expect(patches()).toEqual([]);
    const copy = () => channelMessages('orw-upsert').then((ms) => ms[0]!);
    expect(threadFacts(await copy())).toEqual({ root: `C1/${ROOT_TS}`, isRoot: false, rootMissing: true });

    await writeFile(join(exportDir, 'orw-upsert', '2020-09-14.json'), dayOfReply('the reply, edited'));
    const edited = await runImport({ config, stateDir: state }, { client: f.client });
    expect(edited.stages.messages).toMatchObject({ read: 3, imported: 3, updated: 1, orphans: 1, pending: 0 });
    const listed = (await changedFile(edited.runDir)).trim().split('\n').map((l) => JSON.parse(l) as { differences: Array<{ field: string }> });
    expect(listed.map((l) => l.differences.map((d) => d.field))).toEqual([['body']]);
    expect(await copy()).toMatchObject({ body: 'the reply, edited', repliesCount: 1 });
    expect(threadFacts(await copy())).toEqual({ root: `C1/${ROOT_TS}`, isRoot: false, rootMissing: true });
  });
});
