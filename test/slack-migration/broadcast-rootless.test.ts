import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
const msg = (ts: string, text: unknown, more: Record<string, unknown> = {}) => ({ type: 'message', ts, user: 'U1', text, ...more });

async function migrate(name: string, rootMore: Record<string, unknown>, slackOptions = '', broadcastText = 'said in both') {
  const root = await writeExportFolder(`chatport-slack-${name}-`, {
    'users.json': [{ id: 'U1', team_id: 'TR', name: `${name}-ana` }],
    'channels.json': [{ id: 'C1', name, members: ['U1'] }],
    [`${name}/2020-09-14.json`]: [
      msg(ROOT, 'the root', { thread_ts: ROOT, reply_count: 2, ...rootMore }),
      msg('1600100010.000100', 'plain reply', { thread_ts: ROOT }),
      msg('1600100020.000100', broadcastText, { subtype: 'thread_broadcast', thread_ts: ROOT }),
      msg('1600100030.000100', 'after it'),
    ],
    [`${name}/2020-09-15.json`]: [msg('1600200000.000100', 'next day')],
  });
  const dir = join(f.dir, name);
  await mkdir(dir);
  const { config } = await writePipeline(dir, `name: ${name}\nslack:\n  export: ${root}\n${slackOptions}`);
  const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
  const again = await runImport({ config, stateDir: join(dir, 'state2'), verify: {} }, { client: f.client });
  const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === name)!;
  const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
  const listed = await readFile(join(report.runDir!, 'duplicates', 'messages.ndjson'), 'utf8');
  return { report, again, listed, bodies: messages.map((m) => m.body) };
}

/**
 * A reply "also sent to the channel" whose root is in the export but not imported has no thread to go into:
 * Slack showed it in the channel at its time, and that is where its channel copy stands. Before, the reply
 * was also sent to the channel as a late orphan: the channel showed it twice.
 */
describe('a Slack broadcast reply whose root is not imported', () => {
  it('root rejected: the reply shows once, at its time; counts and verification exact, also on a second run', async () => {
    const { report, again, listed, bodies } = await migrate('bcr-rejected', { text: 5 });
    expect(bodies).toEqual(['said in both', 'after it', 'next day', 'plain reply']);
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 4, duplicates: 1, rejected: 1, skipped: 0, orphans: 1 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact', stages: { messages: { expected: 4, verified: 4 } } });
    expect(listed).toContain('its channel copy');
    expect(again.stages.messages).toMatchObject({ read: 6, imported: 4, duplicates: 1, rejected: 1 });
    expect(again.verification).toMatchObject({ status: 'exact', stages: { messages: { expected: 4, verified: 4 } } });
  });

  it('a long one, split: each part is a duplicate of its copy part, named by that part\'s key', async () => {
    const long = `${'word '.repeat(5000)}\n${'more '.repeat(5000)}`;
    const { report, listed } = await migrate('bcr-split', { text: 5 }, '', long);
    expect(report.stages.messages).toMatchObject({ read: 8, imported: 5, duplicates: 2, rejected: 1 });
    expect(listed).toContain('TR/C1/1600100020.000100/broadcast/part2');
    expect(listed).not.toContain('part2/broadcast');
  });

  it('root a skipped system message: the same', async () => {
    const { report, bodies } = await migrate('bcr-skipped', { subtype: 'channel_topic' }, '  systemMessages: skip\n');
    expect(bodies).toEqual(['said in both', 'after it', 'next day', 'plain reply']);
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 4, duplicates: 1, skipped: 1, orphans: 1 });
    expect(report.verification).toMatchObject({ status: 'exact', stages: { messages: { expected: 4, verified: 4 } } });
  });
});
