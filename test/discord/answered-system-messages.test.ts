import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/pipeline/report.js';
import type { ImportFixture } from '../import/support.js';
import type { PlatformState } from '../slack-migration/support.js';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { writePipeline } from '../import/support.js';
import { readPlatform } from '../slack-migration/support.js';
import { GUILD, LOBBY, LOBBY_FILE, ana, bo, file, fixtureWithExport, importFiles, message } from './hand-made-export.js';

/**
 * Replies to system messages under `systemMessages: skip` (hand-made, DiscordChatExporter's shapes): Discord
 * offers "Wave to say hi!" on a member's join note, which makes a `Reply` to that `GuildMemberJoin`.
 */
const reply = (to: string) => ({ type: 'Reply', reference: { messageId: to, channelId: LOBBY.id, guildId: GUILD.id } });

const lobby = [
  message('927400000000000001', 1, 'hello'),
  message('927400000000000002', 2, 'Joined the server.', bo, { type: 'GuildMemberJoin' }),
  message('927400000000000003', 3, '[sticker: Wave]', ana, reply('927400000000000002')),
  message('927400000000000004', 4, 'Pinned a message.', ana, { type: 'ChannelPinnedMessage' }),
  message('927400000000000005', 5, 'thanks!', bo, reply('927400000000000003')),
  message('927400000000000006', 6, 'back in the channel', bo),
];

let f: ImportFixture;
let report: RunReport;
let platform: PlatformState;
let earlier: ImportFixture;
let rerun: RunReport;
let rerunPlatform: PlatformState;

beforeAll(async () => {
  ({ f, report, platform } = await importFiles({ [LOBBY_FILE]: file(LOBBY, lobby) }, '  systemMessages: skip\n'));
  // What earlier versions left: the join note skipped, the replies orphans at the lobby's end (run 1 here
  // has no note to answer, as an earlier version had none to keep); then this version runs on that platform.
  let dir: string;
  ({ f: earlier, dir } = await fixtureWithExport());
  for (const messages of [lobby.filter((m) => m.type !== 'GuildMemberJoin'), lobby]) {
    await writeFile(join(dir, LOBBY_FILE), file(LOBBY, messages));
    const { config } = await writePipeline(earlier.dir, `name: discord\ndiscord:\n  export: ${dir}\n  systemMessages: skip\n`);
    rerun = await runImport({ config, stateDir: join(earlier.dir, 'state'), verify: {} }, { client: earlier.client });
  }
  rerunPlatform = await readPlatform(earlier.client);
}, 60_000);
afterAll(() => Promise.all([f?.close(), earlier?.close()]));

describe('Discord replies to a system message that systemMessages: skip leaves out', () => {
  it('keeps the answered note at its time, its replies in its thread; skips the unanswered one; verifies exact', () => {
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.messages.map((m) => [m.type, m.body])).toEqual([['TEXT', 'hello'], ['SYSTEM_TEXT', 'Joined the server.'], ['TEXT', 'back in the channel']]);
    expect(lobby.threads.get('927400000000000002')?.replies.map((m) => [m.user, m.body])).toEqual([['ana', '[sticker: Wave]'], ['bo', 'thanks!']]);
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 5, skipped: 1, rejected: 0, replies: 2 });
    expect(report.stages.messages?.orphans ?? 0).toBe(0);
    expect(report.verification?.status).toBe('exact');
  });

  it('on a platform where an earlier version left those replies at the channel\'s end, moves them into the note\'s thread, none doubled', () => {
    const lobby = rerunPlatform.channels.find((c) => c.slackId === LOBBY.id)!;
    // The note the import adds now lands after what the channel held (docs/threads.md "Moved orphans").
    expect(lobby.messages.map((m) => m.body)).toEqual(['hello', 'back in the channel', 'Joined the server.']);
    expect(lobby.threads.get('927400000000000002')?.replies.map((m) => m.body)).toEqual(['[sticker: Wave]', 'thanks!']);
    expect(rerun.stages.messages).toMatchObject({ read: 6, skipped: 1, replies: 2, moved: 2 });
    // Verification names the note out-of-order, nothing else (docs/discord-migration.md "Limits").
    expect(rerun.verification && 'counts' in rerun.verification ? rerun.verification.counts : undefined).toEqual({ missing: 0, extra: 0, misplaced: 0, 'out-of-order': 1, changed: 0 });
  });
});
