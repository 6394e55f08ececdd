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
 * A reply filed under an earlier day than its root (re-assembled exports): its root is read only later, so
 * it must not be called missing and put in the channel; a reply whose root no later day file can hold still is.
 */
describe('a Slack reply in a day file earlier than its root\'s', () => {
  it('goes into its root\'s thread; a reply to a root long before every later day stays in its place', async () => {
    const root = await mkdtemp(join(tmpdir(), 'chatport-slack-earlyreply-'));
    await writeFile(join(root, 'users.json'), JSON.stringify([{ id: 'U1', team_id: 'TE', name: 'early-ana' }, { id: 'U2', team_id: 'TE', name: 'early-bo' }]));
    await writeFile(join(root, 'channels.json'), JSON.stringify([{ id: 'C1', name: 'early-general', members: ['U1', 'U2'] }]));
    await mkdir(join(root, 'early-general'));
    const rootTs = '1600050000.000100';
    await writeFile(join(root, 'early-general', '2020-09-13.json'), JSON.stringify([
      { type: 'message', ts: '1599990000.000100', user: 'U1', text: 'reply to a root before the export', thread_ts: '1500000000.000000' },
      { type: 'message', ts: '1600100000.000050', user: 'U2', text: 'reply filed a day early', thread_ts: rootTs },
    ]));
    await writeFile(join(root, 'early-general', '2020-09-14.json'), JSON.stringify([
      { type: 'message', ts: rootTs, user: 'U1', text: 'the root', thread_ts: rootTs, reply_count: 2 },
      { type: 'message', ts: '1600100000.000100', user: 'U1', text: 'reply in its day', thread_ts: rootTs },
    ]));
    await mkdir(join(f.dir, 'early'));
    const { config } = await writePipeline(join(f.dir, 'early'), `name: slack-early\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(f.dir, 'early', 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 4, imported: 4, rejected: 0, skipped: 0, pending: 0, replies: 2 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });

    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'early-general')!;
    const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
    expect(messages.map((m) => m.body)).toEqual(['reply to a root before the export', 'the root']);
    const thread = replyThreadIdOf(messages[1]!)!;
    expect((await all(f.client.threads.messages(thread, { pageSize: 100 }))).map((m) => m.body)).toEqual(['reply filed a day early', 'reply in its day']);
  });
});
