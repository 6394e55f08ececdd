import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStageRecords } from '../../src/pipeline/import/read-stage.js';
import { parentRefOf } from '../../src/pipeline/import/replies/index.js';
import { writePipeline } from '../import/support.js';

const GUILD = { id: '1150000000000000001', name: 'Guild' };
const CHANNEL = { id: '661735342080000001', type: 'GuildTextChat', categoryId: null, category: 'Text', name: 'lobby', topic: null };
const author = { id: '532347774566400008', name: 'ana', discriminator: '0', nickname: null, isBot: false, color: null, roles: [], avatarUrl: '' };
const message = (id: string, day: number, content: string, extra: Record<string, unknown> = {}) => ({
  id, type: 'Default', timestamp: `2022-01-${String(day).padStart(2, '0')}T09:00:00.000+00:00`, timestampEdited: null, isPinned: false, content, author, attachments: [], embeds: [], reactions: [], mentions: [], ...extra,
});
const file = (channel: object, messages: object[]) => JSON.stringify({ guild: GUILD, channel, dateRange: { after: null, before: null }, exportedAt: '2024-05-06T07:08:09.123+00:00', messages, messageCount: messages.length });

describe('a Discord thread fed by inline replies and by its own thread file', () => {
  it("reads the thread's messages in time order, whichever file each came from", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-discord-order-'));
    const root = '927400000000000001';
    await writeFile(
      join(dir, 'Guild - Text - lobby.json'),
      file(CHANNEL, [message(root, 1, 'the root'), message('927400000000000009', 3, 'inline reply, Jan 3', { type: 'Reply', reference: { messageId: root, channelId: CHANNEL.id, guildId: GUILD.id } }), message('927400000000000010', 10, 'inline reply, Jan 10', { type: 'Reply', reference: { messageId: root, channelId: CHANNEL.id, guildId: GUILD.id } }), message('927400000000000011', 11, 'a channel message')]),
    );
    await writeFile(
      join(dir, 'Guild - Text - lobby thread.json'),
      file({ id: root, type: 'GuildPublicThread', categoryId: CHANNEL.id, category: 'lobby', name: 'lobby thread', topic: null }, [message('927400000000000005', 5, 'thread message, Jan 5'), message('927400000000000006', 6, 'thread message, Jan 6')]),
    );
    const { config } = await writePipeline(dir, `name: discord-order\ndiscord:\n  export: ${dir}\n`);
    const messages = config.stages.find((s) => s.stage === 'messages')!;
    // Replies are sent into their root's thread after the channels' messages: their order is the thread's.
    const channel: string[] = [];
    const thread: string[] = [];
    for await (const p of readStageRecords(config, messages, { sources: {}, channelIds: () => 1 }))
      if (p.kind === 'accepted') (parentRefOf(messages, p) === undefined ? channel : thread).push(String(p.item.body));
    expect(channel).toEqual(['the root', 'a channel message']);
    expect(thread).toEqual(['inline reply, Jan 3', 'thread message, Jan 5', 'thread message, Jan 6', 'inline reply, Jan 10']);
  });

  it('merges by time the thread files that feed one reply thread: a thread opened on a reply joins its chain', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-discord-chain-'));
    const root = '927400000000000001';
    const reply = '927400000000000002';
    const ref = (id: string) => ({ type: 'Reply', reference: { messageId: id, channelId: CHANNEL.id, guildId: GUILD.id } });
    const thread = (id: string, name: string) => ({ id, type: 'GuildPublicThread', categoryId: CHANNEL.id, category: 'lobby', name, topic: null });
    await writeFile(join(dir, 'Guild - Text - lobby.json'), file(CHANNEL, [message(root, 1, 'the root'), message(reply, 2, 'inline reply, Jan 2', ref(root)), message('927400000000000012', 12, 'inline reply, Jan 12', ref(reply))]));
    await writeFile(join(dir, 'Guild - Text - lobby thread.json'), file(thread(root, 'lobby thread'), [message('927400000000000005', 5, 'root thread, Jan 5'), message('927400000000000009', 9, 'root thread, Jan 9')]));
    // The thread opened on the inline reply: its messages go into the root's thread too.
    await writeFile(join(dir, 'Guild - Text - reply thread.json'), file(thread(reply, 'reply thread'), [message('927400000000000004', 4, 'reply thread, Jan 4'), message('927400000000000007', 7, 'reply thread, Jan 7')]));
    const { config } = await writePipeline(dir, `name: discord-chain\ndiscord:\n  export: ${dir}\n`);
    const messages = config.stages.find((s) => s.stage === 'messages')!;
    const replies: string[] = [];
    for await (const p of readStageRecords(config, messages, { sources: {}, channelIds: () => 1 })) if (p.kind === 'accepted' && parentRefOf(messages, p) !== undefined) replies.push(String(p.item.body));
    expect(replies).toEqual(['inline reply, Jan 2', 'reply thread, Jan 4', 'root thread, Jan 5', 'reply thread, Jan 7', 'root thread, Jan 9', 'inline reply, Jan 12']);
  });
});
