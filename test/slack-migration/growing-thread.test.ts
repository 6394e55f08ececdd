import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { replyThreadIdOf } from '../../src/pipeline/import/replies/index.js';
import type { VerificationSummary } from '../../src/pipeline/verify/index.js';
import { compareInt64 } from '../../src/shared/int64.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const ROOT = '1600100000.000100';
const msg = (ts: string, text: string, more: Record<string, unknown> = {}) => ({ type: 'message', ts, user: 'U1', text, ...more });

/**
 * The nightly run of a re-made export: a thread got replies since, so its root's reply_count grew. The root
 * itself is unchanged; before, every such root was counted "changed, not applied" (skipped) on every run.
 */
describe('a Slack thread that grew between two exports', () => {
  it('its root is held as it is, not counted changed; the new replies go into the thread', async () => {
    const files = (replies: number, more: Record<string, unknown[]> = {}) => ({
      'users.json': [{ id: 'U1', team_id: 'TG', name: 'grow-ana' }],
      'channels.json': [{ id: 'C1', name: 'grow', members: ['U1'] }],
      'grow/2020-09-14.json': [msg(ROOT, 'the root', { thread_ts: ROOT, reply_count: replies }), msg('1600100010.000100', 'r1', { thread_ts: ROOT })],
      ...more,
    });
    const dir = join(f.dir, 'grow');
    await mkdir(dir);
    const run = async (exportFiles: Record<string, unknown>, mode = '') => {
      const root = await writeExportFolder('chatport-slack-grow-', exportFiles);
      const { config } = await writePipeline(dir, `name: grow\n${mode}slack:\n  export: ${root}\n`);
      return runImport({ config, stateDir: join(dir, 'state'), verify: { sample: 10 } }, { client: f.client });
    };
    await run(files(1));
    const again = await run(files(2, { 'grow/2020-09-15.json': [msg('1600200000.000100', 'r2', { thread_ts: ROOT })] }));
    expect(again.stages.messages).toMatchObject({ read: 3, imported: 3, skipped: 0, changed: 0, replies: 2 });
    // Read back whole (the sample takes every message): the root's stale count is no difference either.
    expect(again.verification).toMatchObject({ status: 'exact', sample: { picked: 3 } });
    // An upsert run patches nothing for it either.
    const upsert = await run(files(2, { 'grow/2020-09-15.json': [msg('1600200000.000100', 'r2', { thread_ts: ROOT })] }), 'options: { mode: upsert }\n');
    expect(upsert.stages.messages).toMatchObject({ read: 3, imported: 3, updated: 0, skipped: 0 });
    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === 'grow')!;
    expect((await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).map((m) => m.body)).toEqual(['the root']);
  });
});

/**
 * A reply whose root is not in the export, in the export's last day file, is marked rootMissing and imported in
 * its place; the next export, with a later day file, may hold its root (UTC+14), so the reply is sent as an
 * orphan and found there. Before, its placement fact differing alone counted it changed, not applied.
 */
describe('a Slack reply without its root, last in one export and not in the next', () => {
  it('is found in its channel as it is, not counted changed', async () => {
    const files = (more: Record<string, unknown[]> = {}) => ({
      'users.json': [{ id: 'U1', team_id: 'TM', name: 'rm-ana' }],
      'channels.json': [{ id: 'C1', name: 'rm', members: ['U1'] }],
      'rm/2020-09-15.json': [msg('1600170000.000100', 'd15'), msg('1600190000.000100', 'lost root reply', { thread_ts: '1600180000.000100' })],
      ...more,
    });
    const dir = join(f.dir, 'rm');
    await mkdir(dir);
    const run = async (exportFiles: Record<string, unknown>) => {
      const root = await writeExportFolder('chatport-slack-rm-', exportFiles);
      const { config } = await writePipeline(dir, `name: rm\nslack:\n  export: ${root}\n`);
      return runImport({ config, stateDir: join(dir, 'state'), verify: { sample: 10 } }, { client: f.client });
    };
    expect((await run(files())).stages.messages).toMatchObject({ read: 2, imported: 2, orphans: 1 });
    const again = await run(files({ 'rm/2020-09-16.json': [msg('1600300000.000100', 'd16')] }));
    expect(again.stages.messages).toMatchObject({ read: 3, imported: 3, skipped: 0, changed: 0, orphans: 1, orphansHeld: 1 });
    expect(again.verification).toMatchObject({ status: 'exact', sample: { picked: 3 } });
  });
});

/**
 * Nightly date-ranged exports into one state folder: the second export holds replies to a root the first run
 * imported. Before, each such reply was marked rootMissing and imported into the channel as an orphan.
 */
describe('a Slack reply whose root an earlier run imported (incremental exports)', () => {
  it.each([
    ['root not yet a root when first exported', 'inc-plain', {}],
    ['root already a thread root then', 'inc-root', { thread_ts: ROOT, reply_count: 1 }],
  ])('%s: the reply goes into its thread, as in one export; nothing missing, misplaced or out of order', async (_, name, rootMore) => {
    const files = (days: Record<string, unknown[]>) => ({
      'users.json': [{ id: 'U1', team_id: 'TI', name: `${name}-ana` }],
      'channels.json': [{ id: 'C1', name, members: ['U1'] }],
      ...Object.fromEntries(Object.entries(days).map(([day, messages]) => [`${name}/${day}.json`, messages])),
    });
    const dir = join(f.dir, name);
    await mkdir(dir);
    const run = async (exportFiles: Record<string, unknown>) => {
      const root = await writeExportFolder(`chatport-slack-${name}-`, exportFiles);
      const { config } = await writePipeline(dir, `name: ${name}\nslack:\n  export: ${root}\n`);
      return runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    };
    const first = await run(files({ '2020-09-14': [msg(ROOT, 'the root', rootMore), msg('1600100100.000100', 'day one')] }));
    expect(first.stages.messages).toMatchObject({ read: 2, imported: 2 });
    const second = await run(
      files({
        '2020-09-15': [
          msg('1600200000.000100', 'day two'),
          msg('1600200010.000100', 'late reply', { thread_ts: ROOT }),
          msg('1600200020.000100', 'said in both', { subtype: 'thread_broadcast', thread_ts: ROOT }),
        ],
      }),
    );
    expect(second.stages.messages).toMatchObject({ read: 4, imported: 4, replies: 2, rejected: 0, skipped: 0 });
    expect(second.stages.messages?.orphans ?? 0).toBe(0);
    expect(second.totals.balanced).toBe(true);
    const channel = (await all(f.client.channels.list({ pageSize: 100 }))).find((c) => c.name === name)!;
    const messages = (await all(f.client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id));
    // Nothing missing, misplaced or out of order; the only extras are the first export's two messages, which a
    // verification against the second export alone does not know (as for any date-ranged export).
    const verification = second.verification as VerificationSummary;
    expect(verification.counts).toEqual({ missing: 0, extra: 2, misplaced: 0, 'out-of-order': 0, changed: 0 });
    const differences = (await readFile(verification.files!.differences!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { platformId: string });
    expect(differences.map((d) => d.platformId)).toEqual([String(messages[0]!.id), String(messages[1]!.id)]);
    expect(messages.map((m) => m.body)).toEqual(['the root', 'day one', 'day two', 'said in both']);
    const thread = await all(f.client.threads.messages(replyThreadIdOf(messages[0]!)!));
    expect(thread.map((m) => m.body)).toEqual(['late reply', 'said in both']);
  });
});
