import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type PlatformChannel } from '../slack-migration/support.js';

/**
 * Mattermost's own import takes a reply for one it holds only when channel, time, text AND thread match
 * (`importReplies` compares the root): a bot answering "ack" in two threads in the same millisecond is
 * two posts, and so is a reply written like its root at the root's time. Hand-made export.
 */
const at = (minute: number) => 1_700_000_000_000 + minute * 60_000;
const line = (type: string, value: unknown) => JSON.stringify({ type, [type]: value });
const user = (username: string) => ({ username, email: `${username}@example.invalid`, roles: 'system_user', teams: [{ name: 'acme', roles: 'team_user', channels: [{ name: 'ops', roles: 'channel_user' }] }] });
const post = (fields: Record<string, unknown>) => ({ type: '', props: {}, edit_at: 0, ...fields });
const ack = (minute: number) => post({ user: 'bot', message: 'ack', create_at: at(minute) });
const EXPORT = [
  JSON.stringify({ type: 'version', version: 1 }),
  line('team', { name: 'acme', display_name: 'Acme', type: 'O' }),
  line('channel', { team: 'acme', name: 'ops', display_name: 'Ops', type: 'O' }),
  line('user', user('ana')),
  line('user', user('bot')),
  // Listed as mmctl lists them, by post id: ticket B first though it is later.
  line('post', post({ team: 'acme', channel: 'ops', user: 'ana', message: 'ticket B', create_at: at(2), replies: [ack(3), ack(3)] })),
  line('post', post({ team: 'acme', channel: 'ops', user: 'ana', message: 'ticket A', create_at: at(1), replies: [ack(3)] })),
  line('post', post({ team: 'acme', channel: 'ops', user: 'ana', message: 'same', create_at: at(4), replies: [post({ user: 'ana', message: 'same', create_at: at(4) })] })),
].join('\n') + '\n';

let f: ImportFixture;
let first: RunReport;
let ops: PlatformChannel;

beforeAll(async () => {
  f = await startImportFixture();
  const file = await writeInput(f.dir, 'export.jsonl', EXPORT);
  const { config } = await writePipeline(f.dir, `name: mattermost\nmattermost:\n  export: ${file}\n`);
  first = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
  ops = (await readPlatform(f.client)).channels.find((c) => c.slackId === 'acme/ops')!;
}, 60_000);
afterAll(() => f?.close());

describe('the same reply (time, author, text) in two threads of a channel', () => {
  it('is imported in each thread; the same reply twice in one thread stays one (a duplicate)', () => {
    expect(first.stages.messages).toMatchObject({ read: 7, imported: 6, duplicates: 1, rejected: 0 });
    expect(first.verification?.status).toBe('exact');
    expect(ops.messages.map((m) => m.body)).toEqual(['ticket A', 'ticket B', 'same']);
    const threadOf = (body: string) => ops.threads.get(String(ops.messages.find((m) => m.body === body)!.source.id))!.replies.map((r) => [r.user, r.body]);
    expect(threadOf('ticket A')).toEqual([['bot', 'ack']]);
    expect(threadOf('ticket B')).toEqual([['bot', 'ack']]);
    expect(threadOf('same')).toEqual([['ana', 'same']]);
  });

  it('keeps the first copy under the key earlier versions gave it, and a rerun changes nothing', async () => {
    const ackA = ops.threads.get(String(ops.messages.find((m) => m.body === 'ticket A')!.source.id))!.replies[0]!;
    expect(String(ackA.source.id)).toMatch(/^acme\/ops\/1700000180000\/bot\/[0-9a-f]{8}$/);
    const { config } = await writePipeline(f.dir, `name: mattermost\nmattermost:\n  export: ${join(f.dir, 'export.jsonl')}\n`);
    const again = await runImport({ config, stateDir: join(f.dir, 'state-again'), verify: {} }, { client: f.client });
    expect(again.stages.messages).toMatchObject({ read: 7, imported: 6, duplicates: 1, rejected: 0 });
    expect(again.verification?.status).toBe('exact');
    expect((await readPlatform(f.client)).channels.find((c) => c.slackId === 'acme/ops')).toEqual(ops);
  });
});
