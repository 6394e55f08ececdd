import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { runVerify } from '../../src/pipeline/verify/run-verify.js';
import { byHand } from '../verify/by-hand.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type PlatformState } from '../slack-migration/support.js';

/**
 * `mmctl export create` lists posts by post id, which is random: a channel's posts come in no order of
 * time. They must land by create_at (equal times as listed), whatever the sort's memory, and verification
 * must expect that order.
 */
const post = (channel: string, user: string, message: string, create_at: number, replies: unknown[] = []) => ({ type: 'post', post: { team: 'acme', channel, user, message, create_at, replies } });
const dm = (message: string, create_at: number) => ({ type: 'direct_post', direct_post: { channel_members: ['bo', 'ana'], user: 'bo', message, create_at } });
const LINES = [
  { type: 'version', version: 1 },
  { type: 'team', team: { name: 'acme', display_name: 'Acme' } },
  { type: 'channel', channel: { team: 'acme', name: 'town-square', display_name: 'Town Square', type: 'O' } },
  { type: 'channel', channel: { team: 'acme', name: 'dev', display_name: 'Dev', type: 'O' } },
  ...['ana', 'bo'].map((username) => ({ type: 'user', user: { username, teams: [{ name: 'acme', channels: [{ name: 'town-square' }, { name: 'dev' }] }] } })),
  { type: 'direct_channel', direct_channel: { members: ['ana', 'bo'] } },
  post('town-square', 'ana', 'third', 3000),
  post('dev', 'bo', 'dev second', 2000),
  post('town-square', 'ana', 'first', 1000, [{ user: 'bo', message: 'answer', create_at: 1500 }]),
  dm('dm second', 5000),
  'not json',
  post('nowhere', 'ana', 'in no channel', 10),
  post('town-square', 'bo', 'second, listed first', 2000),
  post('town-square', 'ana', 'second, listed second', 2000),
  dm('dm first', 4000),
  post('dev', 'ana', 'dev first', 500),
];

const TIME_ORDER = {
  'acme/acme/town-square': ['first', 'second, listed first', 'second, listed second', 'third'],
  'acme/acme/dev': ['dev first', 'dev second'],
  'acme/dm/ana,bo': ['dm first', 'dm second'],
};

let f: ImportFixture | undefined;
afterEach(async () => {
  delete process.env.CHATPORT_MATTERMOST_SORT_BYTES;
  await f?.close();
  f = undefined;
});

async function importExport() {
  f = await startImportFixture();
  const file = join(f.dir, 'export.jsonl');
  await writeFile(file, LINES.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  const { config } = await writePipeline(f.dir, `name: mattermost\nmattermost:\n  export: ${file}\noptions: { chunkRecords: 2, concurrency: 2 }\n`);
  const report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
  return { config, report, platform: await readPlatform(f.client) };
}

const bodies = (platform: PlatformState) => Object.fromEntries(platform.channels.map((c) => [c.chatportKey, c.messages.map((m) => m.body)]));

describe('Mattermost posts listed out of time order', () => {
  it('land in each channel by create_at (equal times as listed); rejects name their lines; verification exact', async () => {
    const { report, platform } = await importExport();
    expect(bodies(platform)).toEqual(TIME_ORDER);
    const first = platform.channels.find((c) => c.chatportKey === 'acme/acme/town-square')!.threads;
    expect([...first.values()].map((t) => t.replies.map((m) => m.body))).toEqual([['answer']]);
    expect(report.verification?.status).toBe('exact');
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { index: number; reasons: Array<{ field: string }> });
    expect(rejects.map((r) => [r.index + 1, r.reasons[0]!.field])).toEqual([[12, '(line)'], [13, 'post.channel']]);
  }, 120_000);

  it('land the same when the sort spills every post to run files (a budget of one byte)', async () => {
    process.env.CHATPORT_MATTERMOST_SORT_BYTES = '1';
    const { report, platform } = await importExport();
    expect(bodies(platform)).toEqual(TIME_ORDER);
    expect(report.verification?.status).toBe('exact');
  }, 120_000);

  it('make verification find a channel left in the export\'s listing order', async () => {
    const { config, report } = await importExport();
    const client = f!.client;
    // As the listing has it: "dev second" before "dev first" (taken out and posted again by hand, so it comes last).
    const dev = (await all(client.channels.list())).find((c) => c.properties?.chatportKey === 'acme/acme/dev')!;
    const first = (await all(client.channels.messages(dev.id))).find((m) => m.body === 'dev first')!;
    const hand = await byHand(f!.sandbox);
    await hand.call('DELETE', `/messages/${first.id}`);
    await hand.call('POST', `/channels/${dev.id}/messages`, { type: first.type, body: first.body, user: { username: first.user!.name }, properties: first.properties });
    const { summary, differences } = await runVerify({ config, rejectsFiles: [report.rejectsFile!], sample: 'auto' }, { client });
    expect(summary.status).toBe('differences');
    // Named by its key: the channel's key, then the post's source id.
    expect(differences.map((d) => `${d.kind} ${d.stage} ${d.sourceKey}`)).toEqual([`out-of-order messages acme/acme/dev/${String((first.properties!.source as { id: string }).id)}`]);
  }, 120_000);
});
