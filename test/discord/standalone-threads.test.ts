import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { GUILD, LOBBY, LOBBY_FILE, ana, bo, file, fixtureWithExport, message, snowflakeAt } from './hand-made-export.js';
import { readPlatform, type PlatformState } from '../slack-migration/support.js';

/**
 * Threads as Discord makes them without a message to hang on (hand-made, DiscordChatExporter's shapes): a
 * thread started from the "+" menu has an id of its own, and its channel holds a `ThreadCreated` message
 * (its own id, `reference.channelId` the thread) instead of a starter; a thread whose starter message was
 * deleted has the id of a message the export lacks.
 */
const STANDALONE = '927400000000000050';
// The deleted starter's id is a snowflake of its time, 10:04:30 (+01:00): between 'plans' and 'back in the channel'.
const DELETED_STARTER = snowflakeAt('2024-03-01T10:04:30.000+01:00');
const PRIVATE = '927400000000000080';
const thread = (id: string, name: string, type = 'GuildPublicThread') => ({ id, type, categoryId: LOBBY.id, category: 'lobby', name, topic: null });

let f: ImportFixture;
let report: RunReport;
let platform: PlatformState;
let skipping: ImportFixture;
let skipReport: RunReport;
let skipPlatform: PlatformState;

beforeAll(async () => {
  let dir: string;
  ({ f, dir } = await fixtureWithExport());
  await writeFile(join(dir, LOBBY_FILE), file(LOBBY, [
    message('927400000000000001', 1, 'hello'),
    message('927400000000000051', 2, 'plans', ana, { type: 'ThreadCreated', reference: { messageId: null, channelId: STANDALONE, guildId: GUILD.id } }),
    message('927400000000000070', 9, 'back in the channel', bo),
  ]));
  await writeFile(join(dir, 'Guild - Text Channels - plans [927400000000000050].json'), file(thread(STANDALONE, 'plans'), [
    message('927400000000000052', 3, 'first in the thread'),
    message('927400000000000053', 4, 'answer in the thread', bo, { type: 'Reply', reference: { messageId: '927400000000000052', channelId: STANDALONE, guildId: GUILD.id } }),
  ]));
  await writeFile(join(dir, `Guild - Text Channels - gone [${DELETED_STARTER}].json`), file(thread(DELETED_STARTER, 'gone'), [
    message('927400000000000061', 5, 'its starter was deleted', bo),
    message('927400000000000062', 6, 'still here', ana),
  ]));
  // A private thread (Discord starts one without a message): read by its invited people only.
  await writeFile(join(dir, 'Guild - Text Channels - secret [927400000000000080].json'), file(thread(PRIVATE, 'secret', 'GuildPrivateThread'), [
    message('927400000000000081', 7, 'just between us', ana),
    message('927400000000000082', 8, 'agreed', bo),
  ]));
  const { config } = await writePipeline(f.dir, `name: discord\ndiscord:\n  export: ${dir}\n`);
  report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
  platform = await readPlatform(f.client);
  skipping = await startImportFixture();
  const skip = await writePipeline(skipping.dir, `name: discord\ndiscord:\n  export: ${dir}\n  systemMessages: skip\n`);
  skipReport = await runImport({ config: skip.config, stateDir: join(skipping.dir, 'state'), verify: {} }, { client: skipping.client });
  skipPlatform = await readPlatform(skipping.client);
}, 60_000);
afterAll(() => Promise.all([f?.close(), skipping?.close()]));

describe('Discord threads with no starter message in the export', () => {
  it('imports every message once, rejects none, and verifies exact', () => {
    // 9 messages and the root in place of the deleted starter.
    expect(report.stages.messages).toMatchObject({ read: 10, imported: 10, rejected: 0, skipped: 0, duplicates: 0 });
    expect(report.verification?.status).toBe('exact');
  });

  it('makes a thread started without a message the reply thread of its ThreadCreated note, at its time in the channel', () => {
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.messages.map((m) => [m.type, m.body])).toEqual([['TEXT', 'hello'], ['SYSTEM_TEXT', 'plans'], ['SYSTEM_TEXT', 'Original message was deleted (thread: gone)'], ['TEXT', 'back in the channel']]);
    expect(lobby.threads.get('927400000000000051')?.replies.map((m) => [m.user, m.body])).toEqual([['ana', 'first in the thread'], ['bo', 'answer in the thread']]);
  });

  it('gives a thread whose starter was deleted a root at the starter\'s time, as Discord shows it (deleted-thread-starter.test.ts has re-runs)', () => {
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.threads.get(DELETED_STARTER)?.replies.map((m) => m.body)).toEqual(['its starter was deleted', 'still here']);
    expect(report.stages.messages?.orphans ?? 0).toBe(0);
  });

  it('makes a private thread a PRIVATE channel of the people who wrote in it, not a reply thread every lobby member reads', () => {
    const secret = platform.channels.find((c) => c.slackId === PRIVATE)!;
    expect(secret).toMatchObject({ type: 'PRIVATE', members: ['ana', 'bo'] });
    expect(secret.messages.map((m) => m.body)).toEqual(['just between us', 'agreed']);
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    const inLobby = [...lobby.messages, ...[...lobby.threads.values()].flatMap((t) => t.replies)].map((m) => m.body);
    expect(inLobby).not.toContain('just between us');
  });

  it('keeps that note under systemMessages: skip: it holds the thread (as Slack keeps a thread root\'s tombstone)', () => {
    expect(skipReport.stages.messages).toMatchObject({ read: 10, imported: 10, skipped: 0, rejected: 0 });
    expect(skipReport.verification?.status).toBe('exact');
    const lobby = skipPlatform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.threads.get('927400000000000051')?.replies.map((m) => m.body)).toEqual(['first in the thread', 'answer in the thread']);
  });
});
