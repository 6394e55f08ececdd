import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { compareInt64 } from '../../src/shared/int64.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const ROOT = '1600100000.000100';
/** A root, a reply "also sent to the channel" and one that is not, then channel messages after them. */
const DAY = [
  { type: 'message', ts: ROOT, user: 'U1', text: 'the root', thread_ts: ROOT, reply_count: 2 },
  { type: 'message', ts: '1600100010.000100', user: 'U1', text: 'plain reply', thread_ts: ROOT, parent_user_id: 'U1' },
  { type: 'message', subtype: 'thread_broadcast', ts: '1600100020.000100', user: 'U1', text: 'said in both', thread_ts: ROOT, parent_user_id: 'U1', root: {} },
  { type: 'message', ts: '1600100030.000100', user: 'U1', text: 'after it' },
  { type: 'message', ts: '1600100040.000100', user: 'U1', text: 'later still' },
];

async function exportOf(name: string): Promise<string> {
  return writeExportFolder(`chatport-slack-${name}-`, {
    'users.json': [{ id: 'U1', team_id: 'TB', name: `${name}-ana` }],
    'channels.json': [{ id: 'C1', name, members: ['U1'] }],
    [`${name}/2020-09-14.json`]: DAY,
  });
}

async function channelOf(name: string) {
  const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === name)!;
  const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
  const root = messages.find((m) => m.body === 'the root');
  const thread = root?.repliesCount ? (await all(f.client.threads.messages(replyThreadIdOf(root)!))).map((m) => m.body) : [];
  return { bodies: messages.map((m) => m.body), thread, messages };
}

/**
 * Slack shows a reply "also sent to the channel" (thread_broadcast) in its thread and in the channel at its
 * time. Before, it was only in its thread; now the channel holds a copy of it (its own record and key).
 */
describe('a Slack reply also sent to the channel', () => {
  it('is in its thread and, as a copy of its own, in the channel at its time; verification reads exact', async () => {
    const root = await exportOf('bc-replies');
    const dir = join(f.dir, 'bc-replies');
    await mkdir(dir);
    const { config } = await writePipeline(dir, `name: bc-replies\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    // The copy is one record more: read = imported + duplicates + rejected + skipped still holds.
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 6, duplicates: 0, rejected: 0, skipped: 0, replies: 2 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });

    const { bodies, thread, messages } = await channelOf('bc-replies');
    expect(bodies).toEqual(['the root', 'said in both', 'after it', 'later still']);
    expect(thread).toEqual(['plain reply', 'said in both']);
    const copy = messages.find((m) => m.body === 'said in both')!;
    expect(copy.user?.name).toBe('bc-replies-ana');
    expect(copy.properties?.source).toMatchObject({ id: `C1/1600100020.000100/broadcast`, broadcastOf: { reply: 'C1/1600100020.000100', root: `C1/${ROOT}` } });
    expect((copy.properties?.source as Record<string, unknown>).thread).toBeUndefined();

    // A second run finds everything there: nothing sent again, the copy not taken for an orphan to move.
    const again = await runImport({ config, stateDir: join(dir, 'state2'), verify: {} }, { client: f.client });
    expect(again.verification).toMatchObject({ status: 'exact' });
    expect(await channelOf('bc-replies')).toMatchObject({ bodies, thread });
  });

  it('with threads: flatten stands in the channel once, with no copy', async () => {
    const root = await exportOf('bc-flat');
    const dir = join(f.dir, 'bc-flat');
    await mkdir(dir);
    const { config } = await writePipeline(dir, `name: bc-flat\noptions: { threads: flatten }\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, duplicates: 0, rejected: 0, skipped: 0 });
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect((await channelOf('bc-flat')).bodies).toEqual(['the root', 'plain reply', 'said in both', 'after it', 'later still']);
  });

  it('stopped after the copy was imported and resumed: the copy is there once, verification exact', async () => {
    const root = await exportOf('bc-stopped');
    const dir = join(f.dir, 'bc-stopped');
    await mkdir(dir);
    const stateDir = join(dir, 'state');
    const { config } = await writePipeline(dir, `name: bc-stopped\noptions: { chunkRecords: 1 }\nslack:\n  export: ${root}\n`);
    // Channel chunks of one record: root, copy, after it, later still. Stopped once the copy's job is done,
    // as a signal stops a run (SIGKILL at seeded points: slack-diff-resume.test.ts).
    const stop = new AbortController();
    const onProgress = (stage: string, c: { jobs: { finished: number } }) => void (stage === 'messages' && c.jobs.finished >= 2 && stop.abort(new Error('stop')));
    expect(await runImport({ config, stateDir }, { client: f.client, signal: stop.signal, onProgress }).catch((e: unknown) => e)).toBeInstanceOf(Error);
    expect((await channelOf('bc-stopped')).bodies.slice(0, 2)).toEqual(['the root', 'said in both']);

    const report = await runImport({ config, stateDir, verify: {} }, { client: f.client });
    expect(report.attempt).toBe(2);
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 6, duplicates: 0 });
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(await channelOf('bc-stopped')).toMatchObject({ bodies: ['the root', 'said in both', 'after it', 'later still'], thread: ['plain reply', 'said in both'] });
  });
});
