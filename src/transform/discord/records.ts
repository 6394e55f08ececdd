import { z } from 'zod';

/**
 * The DiscordChatExporter JSON records chatport reads. Loose objects: fields not named here are kept (in
 * `properties.source.extra`); only what the mapping relies on is typed. Ids are snowflakes, beyond 2^53:
 * strings, never numbers.
 */
const snowflake = z.string().regex(/^\d{1,20}$/, 'a Discord id: decimal digits, as a string');
const optStr = z.string().nullish();

export const DiscordGuild = z.looseObject({ id: snowflake, name: optStr });
export type DiscordGuild = z.infer<typeof DiscordGuild>;

export const DiscordChannel = z.looseObject({
  id: snowflake,
  type: z.string().min(1),
  categoryId: snowflake.nullish(),
  category: optStr,
  name: optStr,
  topic: optStr,
});
export type DiscordChannel = z.infer<typeof DiscordChannel>;

export const DiscordUser = z.looseObject({
  id: snowflake,
  name: z.string(),
  discriminator: optStr,
  nickname: optStr,
  isBot: z.boolean().nullish(),
});
export type DiscordUser = z.infer<typeof DiscordUser>;

const attachments = z.array(z.looseObject({ id: optStr, url: optStr, fileName: optStr, fileSizeBytes: z.number().nullish() })).nullish();
const embeds = z.array(z.unknown()).nullish();
const stickers = z.array(z.looseObject({ id: optStr, name: optStr })).nullish();
const emoji = z.looseObject({ id: optStr, name: optStr, code: optStr, isAnimated: z.boolean().nullish() });

/**
 * DiscordChatExporter writes a message type its own enum lacks as Discord's number (`Enum.ToString()`):
 * a slash command's answer is `"20"`, a thread's starter `"21"`, a context-menu command's answer `"23"`.
 * These read as the names the mapping knows; other numbers stay as written (system messages).
 */
const NUMBERED_KINDS: Readonly<Record<string, string>> = { '0': 'Default', '19': 'Reply', '20': 'ChatInputCommand', '21': 'ThreadStarterMessage', '23': 'ContextMenuCommand' };
export const messageKind = (type: string): string => NUMBERED_KINDS[type] ?? type;

export const DiscordMessage = z.looseObject({
  id: snowflake,
  type: z.string().min(1).transform(messageKind),
  timestamp: z.string().min(1),
  timestampEdited: optStr,
  isPinned: z.boolean().nullish(),
  content: z.string().nullish(),
  author: DiscordUser,
  attachments,
  embeds,
  stickers,
  reactions: z.array(z.looseObject({ emoji, count: z.number().nullish(), users: z.array(DiscordUser).nullish() })).nullish(),
  mentions: z.array(DiscordUser).nullish(),
  reference: z.looseObject({ messageId: snowflake.nullish(), channelId: snowflake.nullish(), guildId: snowflake.nullish() }).nullish(),
  forwardedMessage: z.looseObject({ content: z.string().nullish(), attachments, embeds, stickers }).nullish(),
});
export type DiscordMessage = z.infer<typeof DiscordMessage>;

/** What pass 1 reads of a message: only the people in it (the messages pass checks the rest). */
export const DiscordMessagePeople = z.looseObject({
  author: DiscordUser,
  mentions: z.array(DiscordUser).nullish(),
  reactions: z.array(z.looseObject({ users: z.array(DiscordUser).nullish() })).nullish(),
});

/** Channel types whose files hold a thread's messages (their `categoryId` is the parent channel). */
export const THREAD_TYPES = new Set(['GuildPublicThread', 'GuildPrivateThread', 'GuildNewsThread']);
/** A thread only its invited people read: a PRIVATE channel of its own, never a reply thread of its parent. */
export const PRIVATE_THREAD = 'GuildPrivateThread';
/** Direct conversations: one person (DirectTextChat) or a group (DirectGroupTextChat). */
export const DIRECT_TYPES = new Set(['DirectTextChat', 'DirectGroupTextChat']);
/** Message types that carry what a person wrote; every other type is a system message. */
export const PERSON_MESSAGE_TYPES = new Set(['Default', 'Reply', 'ChatInputCommand', 'ContextMenuCommand']);
/** A channel's note that a thread was started without a message (`reference.channelId` the thread). */
export const THREAD_CREATED = 'ThreadCreated';
/** The copy of a thread's root message that opens the thread: the root itself is in the parent channel. */
export const THREAD_STARTER = 'ThreadStarterMessage';
