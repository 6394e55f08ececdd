import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import { compareInt64 } from '../../src/shared/int64.js';
import type { Message } from '../../src/wire/resources.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const msg = (ts: string, text: string, more: Record<string, unknown> = {}) => ({ type: 'message', ts, user: 'U1', text, ...more });

async function migrate(name: string, days: Record<string, unknown[]>, options = '', slackOptions = '') {
  const files: Record<string, unknown> = { 'users.json': [{ id: 'U1', team_id: 'TO', name: `${name}-ana` }], 'channels.json': [{ id: 'C1', name, members: ['U1'] }] };
  for (const [day, messages] of Object.entries(days)) files[`${name}/${day}.json`] = messages;
  const root = await writeExportFolder(`chatport-slack-${name}-`, files);
  const dir = join(f.dir, name);
  await mkdir(dir);
  const { config } = await writePipeline(dir, `name: ${name}\n${options}slack:\n  export: ${root}\n${slackOptions}`);
  const run = () => runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
  const report = await run();
  const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === name)!;
  const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
  return { report, messages, run };
}

/**
 * Slack files messages by the workspace's local date: one near midnight can sit in the next day file though
 * its ts is earlier than the last of the day before (exports merged across a time zone change). Before, it
 * was imported after those later messages: out of order on the platform. Now each channel is in ts order
 * across adjacent day files (the day before is held until the next is read, two day files at most).
 */
describe('a Slack message in the next day file, earlier than the last of the day before', () => {
  it('is imported in ts order among the day before, with its key and outOfOrder as before; verification exact', async () => {
    const { report, messages } = await migrate('ord', {
      '2020-09-14': [msg('1600120000.000100', 'first'), msg('1600127000.000100', 'before midnight')],
      '2020-09-15': [msg('1600126000.000100', 'filed a day late'), msg('1600127500.000100', 'next day, early'), msg('1600200000.000100', 'next day')],
      '2020-09-16': [msg('1600250000.000100', 'third day')],
    });
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 6, duplicates: 0, rejected: 0, skipped: 0 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(messages.map((m) => m.body)).toEqual(['first', 'filed a day late', 'before midnight', 'next day, early', 'next day', 'third day']);
    const late = messages[1]!.properties?.source as Record<string, unknown>;
    expect(late).toMatchObject({ id: 'C1/1600126000.000100', outOfOrder: true });
  });

  it('a reply filed so goes into its thread, its broadcast copy into the channel in ts order', async () => {
    const root = '1600120000.000100';
    const { report, messages } = await migrate('ordr', {
      '2020-09-14': [msg(root, 'the root', { thread_ts: root, reply_count: 1 }), msg('1600127000.000100', 'before midnight')],
      '2020-09-15': [msg('1600126000.000100', 'late reply', { subtype: 'thread_broadcast', thread_ts: root }), msg('1600200000.000100', 'next day')],
    });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, replies: 1 });
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(messages.map((m) => m.body)).toEqual(['the root', 'late reply', 'before midnight', 'next day']);
  });

  /** Two day files late: further than the day file before, which alone was held until 2026-11-28. */
  const twoLate = {
    '2020-09-14': [msg('1600120000.000100', 'first'), msg('1600127000.000100', 'before midnight')],
    '2020-09-15': [msg('1600200000.000100', 'next day')],
    '2020-09-16': [msg('1600126000.000100', 'filed two days late'), msg('1600250000.000100', 'third day')],
  };

  it('filed two day files late, it is taken back into ts order within the reorder window', async () => {
    const { report, messages } = await migrate('ord2', twoLate);
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 5 });
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(report.warnings ?? []).toEqual([]);
    expect(messages.map((m) => m.body)).toEqual(['first', 'filed two days late', 'before midnight', 'next day', 'third day']);
  });

  /** Three day files late: further than the two day files always held before the newest (exports merged by hand). */
  const threeLate = {
    '2020-09-14': [msg('1600120000.000100', 'first'), msg('1600127000.000100', 'before midnight')],
    '2020-09-15': [msg('1600200000.000100', 'next day')],
    '2020-09-16': [msg('1600250000.000100', 'third day')],
    '2020-09-17': [msg('1600126000.000100', 'filed three days late'), msg('1600340000.000100', 'fourth day')],
  };

  it('filed further back than the window reaches, it is imported first among what is held, and a warning names it', async () => {
    const { report, messages } = await migrate('ord3', threeLate);
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 6 });
    expect(messages.map((m) => m.body)).toEqual(['first', 'before midnight', 'filed three days late', 'next day', 'third day', 'fourth day']);
    expect(report.warnings?.map((w) => w.message)).toEqual([expect.stringMatching(/^Slack conversation ord3 \(C1\): 1 message filed .* \(the first at .*ord3\/2020-09-17\.json #0\) imported after later messages, out of order; set slack\.reorderWindow above 0 messages/)]);
  });

  it('three day files late, it is taken back with slack.reorderWindow set', async () => {
    const { report, messages } = await migrate('ord4', threeLate, '', '  reorderWindow: 100\n');
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(report.warnings ?? []).toEqual([]);
    expect(messages.map((m) => m.body)).toEqual(['first', 'filed three days late', 'before midnight', 'next day', 'third day', 'fourth day']);
  });

  /**
   * A reply filed day files before its root (exports merged by hand): the root's ts is before the reply's and
   * before its next day file could start, so the reply's day alone calls the root missing. Before, the reply was
   * imported into the channel as an orphan even when the window took its root back before it.
   */
  const ROOT = '1600065000.000100';
  const rootFiledLate = (rootDay: string) => {
    const days: Record<string, unknown[]> = {
      '2020-09-14': [msg('1600060000.000100', 'first'), msg('1600070000.000100', 'reply filed before its root', { thread_ts: ROOT })],
      '2020-09-15': [msg('1600200000.000100', 'next day')],
      '2020-09-16': [msg('1600250000.000100', 'third day')],
    };
    days[rootDay] = [msg(ROOT, 'the root, filed late', { thread_ts: ROOT, reply_count: 1 }), ...(days[rootDay] ?? [msg('1600340000.000100', 'fourth day')])];
    return days;
  };
  const threadOf = async (root: { _links?: unknown }) => (await all(f.client.threads.messages(replyThreadIdOf(root as Message)!))).map((m) => m.body);

  it('a reply filed two day files before its root goes into its thread within the reorder window', async () => {
    const { report, messages } = await migrate('ordrb2', rootFiledLate('2020-09-16'));
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, replies: 1, rejected: 0, skipped: 0 });
    expect(report.stages.messages?.orphans ?? 0).toBe(0);
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(report.warnings ?? []).toEqual([]);
    expect(messages.map((m) => m.body)).toEqual(['first', 'the root, filed late', 'next day', 'third day']);
    expect(await threadOf(messages[1]!)).toEqual(['reply filed before its root']);
  });

  it('three day files before its root: an orphan in the channel, counted and verified so, and a warning names it', async () => {
    const { report, messages, run } = await migrate('ordrb3', rootFiledLate('2020-09-17'));
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 6, orphans: 1 });
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(messages.map((m) => m.body)).toEqual(['first', 'reply filed before its root', 'the root, filed late', 'next day', 'third day', 'fourth day']);
    expect(report.warnings?.map((w) => w.message)).toEqual([
      expect.stringMatching(/^Slack conversation ordrb3 \(C1\): 1 message filed .* \(the first at .*ordrb3\/2020-09-17\.json #0\) imported after later messages, out of order/),
      expect.stringMatching(
        /^Slack conversation ordrb3 \(C1\): 1 reply filed in a day file further before its root than the reorder window reaches \(the first at .*ordrb3\/2020-09-14\.json #1\) imported into the channel as an orphan \(counted in orphans\), not into its thread; set slack\.reorderWindow above 0 messages/,
      ),
    ]);
    // A re-run of the same export (its root now imported by an earlier run) leaves it where it is.
    const again = await run();
    expect(again.stages.messages).toMatchObject({ read: 6, imported: 6, orphans: 1 });
    expect(again.stages.messages?.moved ?? 0).toBe(0);
    expect(again.verification).toMatchObject({ status: 'exact' });
  });

  it('three day files before its root, with slack.reorderWindow set: into its thread (a broadcast reply\'s copy in the channel)', async () => {
    const days = rootFiledLate('2020-09-17');
    days['2020-09-14']![1] = msg('1600070000.000100', 'reply filed before its root', { subtype: 'thread_broadcast', thread_ts: ROOT });
    const { report, messages } = await migrate('ordrb4', days, '', '  reorderWindow: 100\n');
    expect(report.stages.messages).toMatchObject({ read: 7, imported: 7, replies: 1 });
    expect(report.stages.messages?.orphans ?? 0).toBe(0);
    expect(report.verification).toMatchObject({ status: 'exact' });
    expect(report.warnings ?? []).toEqual([]);
    expect(messages.map((m) => m.body)).toEqual(['first', 'the root, filed late', 'reply filed before its root', 'next day', 'third day', 'fourth day']);
    expect(await threadOf(messages[1]!)).toEqual(['reply filed before its root']);
  });
});
