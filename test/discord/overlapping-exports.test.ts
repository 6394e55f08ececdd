import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStageRecords } from '../../src/pipeline/import/read-stage.js';
import { writePipeline } from '../import/support.js';

const GUILD = { id: '1150000000000000001', name: 'Guild' };
const CHANNEL = { id: '661735342080000001', type: 'GuildTextChat', categoryId: null, category: 'Text', name: 'lobby', topic: null };
const author = { id: '532347774566400008', name: 'ana', discriminator: '0', nickname: null, isBot: false, color: null, roles: [], avatarUrl: '' };
const message = (id: string, month: number, content: string) => ({
  id, type: 'Default', timestamp: `2023-0${month}-10T09:00:00.000+00:00`, timestampEdited: null, isPinned: false, content, author, attachments: [], embeds: [], reactions: [], mentions: [],
});
const file = (after: string | null, before: string | null, messages: object[]) =>
  JSON.stringify({ guild: GUILD, channel: CHANNEL, dateRange: { after, before }, exportedAt: '2024-05-06T07:08:09.123+00:00', messages, messageCount: messages.length });

describe('two DiscordChatExporter exports of one channel with overlapping date ranges', () => {
  it('reads the earlier range first, whatever the files are named, so the channel is in time order', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatport-discord-ranges-'));
    const jan = message('927400000000000001', 1, 'January');
    const feb = message('927400000000000002', 2, 'February');
    const mar = message('927400000000000003', 3, 'March');
    // DiscordChatExporter's own names: "(2023-…" sorts before "(before …" though it holds later messages.
    await writeFile(join(dir, 'Guild - Text - lobby [661735342080000001] (before 2023-03-01).json'), file(null, '2023-03-01T00:00:00+00:00', [jan, feb]));
    await writeFile(join(dir, 'Guild - Text - lobby [661735342080000001] (2023-02-01 to 2023-04-01).json'), file('2023-02-01T00:00:00+00:00', '2023-04-01T00:00:00+00:00', [feb, mar]));
    const { config } = await writePipeline(dir, `name: discord-ranges\ndiscord:\n  export: ${dir}\n`);
    const messages = config.stages.find((s) => s.stage === 'messages')!;
    const bodies: string[] = [];
    for await (const p of readStageRecords(config, messages, { sources: {}, channelIds: () => 1 })) if (p.kind === 'accepted') bodies.push(String(p.item.body));
    // February is in both files: the second copy is the stage's duplicate (same key, same record).
    expect(bodies).toEqual(['January', 'February', 'February', 'March']);
  });
});
