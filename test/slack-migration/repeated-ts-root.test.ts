import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
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

/**
 * A broken export: two messages of one channel share a ts, and the second (thread_ts == ts, reply_count 1)
 * is the thread's root. Its reply must go into that root's thread, not the first message's.
 */
describe('a Slack thread root that shares its ts with an earlier message', () => {
  it('gets the replies: the root is the message with thread_ts == ts', async () => {
    const root = await mkdtemp(join(tmpdir(), 'chatport-slack-dupts-'));
    await writeFile(join(root, 'users.json'), JSON.stringify([{ id: 'U1', team_id: 'TD', name: 'dupts-ana' }, { id: 'U2', team_id: 'TD', name: 'dupts-bo' }]));
    await writeFile(join(root, 'channels.json'), JSON.stringify([{ id: 'C1', name: 'dupts-general', members: ['U1', 'U2'] }]));
    await mkdir(join(root, 'dupts-general'));
    const ts = '1600050000.000700';
    await writeFile(join(root, 'dupts-general', '2020-09-14.json'), JSON.stringify([
      { type: 'message', ts, user: 'U1', text: 'dup ts first' },
      { type: 'message', ts, user: 'U2', text: 'dup ts second root', thread_ts: ts, reply_count: 1 },
    ]));
    await writeFile(join(root, 'dupts-general', '2020-09-15.json'), JSON.stringify([{ type: 'message', ts: '1600100000.000500', user: 'U1', text: 'reply to dup ts', thread_ts: ts }]));
    await mkdir(join(f.dir, 'dupts'));
    const { config } = await writePipeline(join(f.dir, 'dupts'), `name: slack\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(f.dir, 'dupts', 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 3, replies: 1 });
    expect(report.verification).toMatchObject({ status: 'exact' });

    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'dupts-general')!;
    const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
    const threadOf = async (body: string) => {
      const thread = replyThreadIdOf(messages.find((m) => m.body === body)!)!;
      return (await all(f.client.threads.messages(thread, { pageSize: 100 }))).map((m) => m.body);
    };
    expect(messages.map((m) => m.body)).toEqual(['dup ts first', 'dup ts second root']);
    expect(await threadOf('dup ts second root')).toEqual(['reply to dup ts']);
    expect(await threadOf('dup ts first')).toEqual([]);
  });

  /**
   * The root of that ts is a system message, skipped under `systemMessages: skip`, in either order with the
   * imported message of its ts. Its replies belong to its thread, which is not on the platform: they are
   * orphans in the channel, as replies of any skipped root are, never replies of the other message.
   */
  it.each([
    ['after', 'shadow-after'],
    ['before', 'shadow-before'],
  ])('a skipped root %s the imported message of its ts: its reply is an orphan in the channel, not in that message\'s thread', async (order, name) => {
    const root = await mkdtemp(join(tmpdir(), `chatport-slack-${name}-`));
    await writeFile(join(root, 'users.json'), JSON.stringify([{ id: 'U1', team_id: 'TS', name: `${name}-ana` }, { id: 'U2', team_id: 'TS', name: `${name}-bo` }]));
    await writeFile(join(root, 'channels.json'), JSON.stringify([{ id: 'C1', name, members: ['U1', 'U2'] }]));
    await mkdir(join(root, name));
    const ts = '1600050000.000700';
    const plain = { type: 'message', ts, user: 'U1', text: 'plain message of that ts' };
    const skippedRoot = { type: 'message', subtype: 'channel_join', ts, user: 'U2', text: 'joined', thread_ts: ts, reply_count: 1 };
    await writeFile(join(root, name, '2020-09-14.json'), JSON.stringify(order === 'after' ? [plain, skippedRoot] : [skippedRoot, plain]));
    await writeFile(join(root, name, '2020-09-15.json'), JSON.stringify([{ type: 'message', ts: '1600100000.000500', user: 'U1', text: 'welcome!', thread_ts: ts }]));
    await mkdir(join(f.dir, name));
    const { config } = await writePipeline(join(f.dir, name), `name: slack-${name}\nslack:\n  export: ${root}\n  systemMessages: skip\n`);
    const report = await runImport({ config, stateDir: join(f.dir, name, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 3, imported: 2, skipped: 1, rejected: 0, pending: 0, orphans: 1 });
    expect(report.stages.messages!.replies ?? 0).toBe(0);
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });

    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === name)!;
    const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
    expect(messages.map((m) => m.body)).toEqual(['plain message of that ts', 'welcome!']);
    expect(messages[0]!.repliesCount).toBe(0);
  });
});
