import { describe, expect, it } from 'vitest';
import { DiscordMessage, ReplyRoots, discordMessage, noteReplyChain } from '../../src/transform/discord/index.js';
import { parseRecord } from '../../src/transform/slack/records.js';

/** A message as DiscordChatExporter writes it (JsonMessageWriter): every field, `type` as its enum prints it. */
function dce(id: string, type: string, content: string, extra: Record<string, unknown> = {}): unknown {
  const bot = { id: '1003', name: 'deploybot', discriminator: '1234', nickname: 'deploybot', color: null, isBot: true, roles: [], avatarUrl: 'https://cdn/a.png' };
  return {
    id, type, timestamp: '2023-05-01T10:01:00+02:00', timestampEdited: null, callEndedTimestamp: null, isPinned: false, content, author: bot,
    attachments: [], components: [], embeds: [], stickers: [], reactions: [], mentions: [], inlineEmojis: [], ...extra,
  };
}

function mapped(raw: unknown, threadId?: string) {
  const parsed = parseRecord(DiscordMessage, raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  const context = { names: { user: () => undefined, channel: () => undefined }, threadIds: new Set<string>(), roots: new ReplyRoots(), threadRoots: new Map<string, string>(), answeredSystemMessages: new Set<string>() };
  return discordMessage(parsed.value, { channelId: '600', ...(threadId ? { threadId } : {}) }, context, { file: 'f.json', index: 0 });
}

describe('Discord message types DiscordChatExporter writes as numbers', () => {
  it('a slash command\'s answer ("20") and a context-menu command\'s ("23") are the bot\'s messages, not system ones', () => {
    for (const type of ['20', '23']) {
      const outcome = mapped(dce('801', type, 'Deployed v1.2', { interaction: { id: '900', name: 'deploy', user: { id: '1001', name: 'alice' } } }));
      expect(outcome.kind).toBe('message');
      if (outcome.kind !== 'message') continue;
      expect(outcome.message.system).toBeUndefined();
      expect(outcome.message.authorId).toBe('1003');
      expect(outcome.message.facts.authorKind).toBe('bot');
    }
  });
  it('a thread\'s starter ("21") is skipped like ThreadStarterMessage: its root is imported in the channel', () => {
    const outcome = mapped(dce('850', '21', '', { reference: { type: 'Default', messageId: '802', channelId: '600', guildId: '500' } }), '802');
    expect(outcome.kind).toBe('skipped');
  });
  it('a number with no person behind it stays a system message named by it', () => {
    const outcome = mapped(dce('860', '46', 'poll ended'));
    expect(outcome.kind === 'message' && outcome.message.system).toBe('46');
  });
  it('"19" is a reply and joins the chain it answers', () => {
    const roots = new ReplyRoots();
    noteReplyChain({ id: '800', type: 'Default' }, '600', roots);
    const parsed = parseRecord(DiscordMessage, dce('804', '19', 'yes', { reference: { messageId: '800', channelId: '600', guildId: '500' } }));
    expect(parsed.ok && noteReplyChain(parsed.value, '600', roots)).toBe('800');
  });
});

describe('a forwarded Discord message', () => {
  it('shows what it forwards: its content is empty, the words and files are in forwardedMessage', () => {
    const outcome = mapped(
      dce('803', 'Default', '', {
        reference: { type: 'Forward', messageId: '1', channelId: '2', guildId: '3' },
        forwardedMessage: {
          timestamp: '2023-04-01T10:00:00+00:00', timestampEdited: null, content: 'the forwarded words',
          attachments: [{ id: '7', url: 'https://cdn/f.png', fileName: 'f.png', fileSizeBytes: 12 }], embeds: [], stickers: [{ id: '8', name: 'wave', format: 'Png', sourceUrl: 'x' }],
        },
      }),
    );
    expect(outcome.kind === 'message' && outcome.message.body).toBe('[forwarded]\nthe forwarded words\n[file: f.png] https://cdn/f.png\n[sticker: wave]');
  });
  it('keeps a forward\'s own words first', () => {
    const outcome = mapped(dce('805', 'Default', 'look', { forwardedMessage: { content: '', attachments: [], embeds: [{ title: 'A page', description: 'about it' }], stickers: [] } }));
    expect(outcome.kind === 'message' && outcome.message.body).toBe('look\n[forwarded]\nA page\nabout it');
  });
});
