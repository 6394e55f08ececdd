import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/pipeline/report.js';
import type { ImportFixture } from '../import/support.js';
import type { PlatformState } from '../slack-migration/support.js';
import { GUILD, LOBBY, LOBBY_FILE, ana, bo, file, importFiles, message } from './hand-made-export.js';

/**
 * Replies to system messages under `systemMessages: skip` (hand-made, DiscordChatExporter's shapes): Discord
 * offers "Wave to say hi!" on a member's join note, which makes a `Reply` to that `GuildMemberJoin`.
 */
const reply = (to: string) => ({ type: 'Reply', reference: { messageId: to, channelId: LOBBY.id, guildId: GUILD.id } });

let f: ImportFixture;
let report: RunReport;
let platform: PlatformState;

beforeAll(async () => {
  ({ f, report, platform } = await importFiles({
    [LOBBY_FILE]: file(LOBBY, [
      message('927400000000000001', 1, 'hello'),
      message('927400000000000002', 2, 'Joined the server.', bo, { type: 'GuildMemberJoin' }),
      message('927400000000000003', 3, '[sticker: Wave]', ana, reply('927400000000000002')),
      message('927400000000000004', 4, 'Pinned a message.', ana, { type: 'ChannelPinnedMessage' }),
      message('927400000000000005', 5, 'thanks!', bo, reply('927400000000000003')),
      message('927400000000000006', 6, 'back in the channel', bo),
    ]),
  }, '  systemMessages: skip\n'));
}, 60_000);
afterAll(() => f?.close());

describe('Discord replies to a system message that systemMessages: skip leaves out', () => {
  it('keeps the answered note at its time, its replies in its thread; skips the unanswered one; verifies exact', () => {
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.messages.map((m) => [m.type, m.body])).toEqual([['TEXT', 'hello'], ['SYSTEM_TEXT', 'Joined the server.'], ['TEXT', 'back in the channel']]);
    expect(lobby.threads.get('927400000000000002')?.replies.map((m) => [m.user, m.body])).toEqual([['ana', '[sticker: Wave]'], ['bo', 'thanks!']]);
    expect(report.stages.messages).toMatchObject({ read: 6, imported: 5, skipped: 1, rejected: 0, replies: 2 });
    expect(report.stages.messages?.orphans ?? 0).toBe(0);
    expect(report.verification?.status).toBe('exact');
  });
});
