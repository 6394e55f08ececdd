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
