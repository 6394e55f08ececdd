import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type PlatformState } from '../slack-migration/support.js';

/**
 * Lines as a current `mmctl export create` writes them (hand-made): a `direct_channel` lists its people
 * as `participants` (objects with a `username`, a self-DM's person twice) instead of `members`, and bots
 * have `bot` lines of their own (username, owner, display name), not `user` lines.
 */
const at = (minute: number) => 1_700_000_000_000 + minute * 60_000;
const line = (type: string, value: unknown) => JSON.stringify({ type, [type]: value });
const participant = (username: string) => ({ username, notify_props: { desktop: 'default', mobile: 'default', mark_unread: 'all' }, scheme_user: true, last_viewed_at: at(99) });
const user = (username: string, first: string) => ({ username, email: `${username}@example.invalid`, auth_service: null, nickname: '', first_name: first, last_name: 'Test', position: '', roles: 'system_user', locale: 'en', delete_at: 0, teams: [{ name: 'acme', roles: 'team_user', channels: [{ name: 'town-square', roles: 'channel_user', favorite: false, mention_count: 0, msg_count: 3 }] }] });
const post = (fields: Record<string, unknown>) => ({ type: '', props: {}, edit_at: 0, is_pinned: false, flagged_by: null, ...fields });

const EXPORT = [
  JSON.stringify({ type: 'version', version: 1, info: { generator: 'mattermost-server', version: '10.5.0', created: '2026-11-01T00:00:00Z' } }),
  JSON.stringify({ type: 'role', role: { name: 'custom_role', display_name: 'Custom', description: '', permissions: ['create_post'], scheme_managed: false } }),
  line('team', { name: 'acme', display_name: 'Acme', type: 'O', description: '', allow_open_invite: false, scheme: null }),
  line('channel', { team: 'acme', name: 'town-square', display_name: 'Town Square', type: 'O', header: '', purpose: '', scheme: null, deleted_at: 0 }),
  line('user', user('ana', 'Ana')),
  line('user', user('bo', 'Bo')),
  line('bot', { username: 'ci-bot', owner: 'ana', display_name: 'CI Bot', description: 'builds', delete_at: 0 }),
  line('direct_channel', { header: 'just us', participants: [participant('ana'), participant('bo')], favorited_by: ['ana'] }),
  line('direct_channel', { header: 'notes to self', participants: [participant('ana'), participant('ana')] }),
  line('post', post({ team: 'acme', channel: 'town-square', user: 'ana', message: 'deploy please', create_at: at(1), replies: [post({ user: 'ci-bot', message: 'build 12 passed', create_at: at(2), props: { from_bot: 'true' } })] })),
  line('post', post({ team: 'acme', channel: 'town-square', user: 'ci-bot', message: 'nightly done', create_at: at(3), props: { from_bot: 'true' } })),
  line('direct_post', post({ channel_members: ['ana', 'bo'], user: 'bo', message: 'lunch?', create_at: at(4) })),
  line('direct_post', post({ channel_members: ['ana', 'ana'], user: 'ana', message: 'remember the milk', create_at: at(5) })),
].join('\n') + '\n';

let f: ImportFixture;
let report: RunReport;
let platform: PlatformState;

beforeAll(async () => {
  f = await startImportFixture();
  const file = await writeInput(f.dir, 'export.jsonl', EXPORT);
  const { config } = await writePipeline(f.dir, `name: mattermost\nmattermost:\n  export: ${file}\n`);
  report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
  platform = await readPlatform(f.client);
}, 60_000);
afterAll(() => f?.close());

describe('a current mmctl export (participants, bot lines)', () => {
  it('rejects no line, and verifies exact', () => {
    expect(report.totals).toMatchObject({ rejected: 0, balanced: true });
    expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, rejected: 0, skipped: 0 });
    expect(report.verification?.status).toBe('exact');
  });

  it('makes a bot line a bot user (not a placeholder), named as the export names it', () => {
    const bot = platform.users.find((u) => u.source.id === 'ci-bot')!;
    expect(bot).toMatchObject({ name: 'ci-bot', displayName: 'CI Bot', source: { userKind: 'bot' } });
    expect(bot.source.placeholder).toBeUndefined();
    const town = platform.channels.find((c) => c.slackId === 'acme/town-square')!;
    expect(town.messages.find((m) => m.body === 'nightly done')?.source).toMatchObject({ author: 'ci-bot', authorKind: 'bot' });
    expect(town.messages.find((m) => m.body === 'deploy please')?.source).toMatchObject({ author: 'ana', authorKind: 'user' });
  });

  it('takes a direct channel\'s people from its participants, with its header', () => {
    const pair = platform.channels.find((c) => c.slackId === 'dm/ana,bo')!;
    expect(pair).toMatchObject({ type: 'DIRECT', members: ['ana', 'bo'] });
    expect(pair.source.topic).toEqual({ text: 'just us' });
    expect(pair.messages.map((m) => m.body)).toEqual(['lunch?']);
    const self = platform.channels.find((c) => c.slackId === 'dm/ana')!;
    expect(self.source.topic).toEqual({ text: 'notes to self' });
    expect(self.messages.map((m) => m.body)).toEqual(['remember the milk']);
  });
});

describe('a direct_channel line with neither members nor participants', () => {
  it('is rejected naming the field', async () => {
    const { parseRecord } = await import('../../src/transform/slack/records.js');
    const { MattermostDirectChannel } = await import('../../src/transform/mattermost/index.js');
    const parsed = parseRecord(MattermostDirectChannel, { header: 'nobody' });
    expect(parsed).toMatchObject({ ok: false, problem: { field: 'members' } });
  });
});
