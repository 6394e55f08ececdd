import type { ExportPosition, MessageOutcome, SourceChannel, SourceMessage, SourceUser } from '../chat-export/index.js';
import { detachString } from '../../shared/detach-string.js';
import { compact, pickExtra, type FileFacts, type ReactionFacts } from '../slack/source-properties.js';
import { discordToText, mentionedIds, type DiscordNames } from './markup.js';
import { DIRECT_TYPES, PERSON_MESSAGE_TYPES, PRIVATE_THREAD, THREAD_CREATED, THREAD_STARTER, type DiscordChannel, type DiscordGuild, type DiscordMessage, type DiscordUser } from './records.js';
import { isoOfEpochMs } from '../../shared/iso-time.js';

/** DiscordChatExporter's name for a user whose account was deleted. */
const DELETED_USER = 'Deleted User';

/**
 * A message author or mentioned user as a source user. Bots are `bot`; webhooks (an author with the
 * discriminator 0000 that is a bot: Discord gives webhooks no account) are `app`, marked `webhook` in
 * extra; deleted accounts keep their id and are marked deleted.
 */
export function discordUser(user: DiscordUser, position: ExportPosition): SourceUser {
  const webhook = user.isBot === true && user.discriminator === '0000';
  const deleted = user.name === DELETED_USER;
  const handle = user.discriminator && user.discriminator !== '0000' && user.discriminator !== '0' ? `${user.name}-${user.discriminator}` : user.name;
  return {
    id: user.id,
    handle: deleted ? `deleted-user-${user.id}` : handle,
    displayName: user.nickname ?? user.name,
    kind: webhook ? 'app' : user.isBot === true ? 'bot' : 'person',
    facts: compact({
      deleted,
      displayName: user.nickname ?? undefined,
      extra: compact({ ...pickExtra(user, ['id', 'name', 'nickname', 'isBot']), webhook: webhook ? true : undefined }),
    }),
    position,
  };
}

/** A channel file's header as a source channel; `members` are the authors seen in it (and its threads). */
export function discordChannel(guild: DiscordGuild, channel: DiscordChannel, members: string[], position: ExportPosition, ownChannelOfThread = false): SourceChannel {
  const direct = DIRECT_TYPES.has(channel.type);
  const privateThread = channel.type === PRIVATE_THREAD;
  return {
    id: channel.id,
    conversationType: channel.type,
    natural: direct ? 'DIRECT' : privateThread ? 'PRIVATE' : 'PUBLIC',
    ...(channel.name ? { name: channel.name } : {}),
    memberIds: members,
    facts: compact({
      topic: channel.topic ? { text: channel.topic } : undefined,
      extra: compact({ guild: { id: guild.id, name: guild.name ?? undefined }, category: channel.category ?? undefined, categoryId: channel.categoryId ?? undefined, threadWithoutParent: ownChannelOfThread ? true : undefined }),
    }),
    position,
  };
}

/** Where a message goes: its platform channel, and for a thread's messages the thread (its id is its root's). */
export interface DiscordPlacement {
  channelId: string;
  threadId?: string;
}

/**
 * The messages pass's view of earlier messages of a channel: which reply chain each belongs to, so that
 * an inline reply joins its chain's root thread. Bounded: past `max` remembered ids the oldest are
 * forgotten, and a reply to one of them starts from the message it names.
 */
export class ReplyRoots {
  private roots = new Map<string, string>();
  constructor(private readonly max = 100_000) {}
  rootOf(id: string): string {
    return this.roots.get(id) ?? id;
  }
  note(id: string, root: string): void {
    if (this.roots.size >= this.max) this.roots.delete(this.roots.keys().next().value!);
    // Ids cut from the parser's input would keep its chunks alive (detach-string.ts).
    const own = detachString(id);
    this.roots.set(own, root === id ? own : detachString(root));
  }
  clear(): void {
    this.roots.clear();
  }
}

export interface DiscordMessageContext {
  names: DiscordNames;
  /** Ids of the export's threads: a channel message with one of these ids opened that thread. */
  threadIds: ReadonlySet<string>;
  roots: ReplyRoots;
  /** Thread id → the message whose reply thread it feeds, where that is not the thread's own id (pass 1). */
  threadRoots: ReadonlyMap<string, string>;
  /** System messages a reply answers (pass 1): roots, kept under `systemMessages: skip`. */
  answeredSystemMessages: ReadonlySet<string>;
}

/** One message as read in the messages pass. */
export function discordMessage(raw: DiscordMessage, placement: DiscordPlacement, context: DiscordMessageContext, position: ExportPosition): MessageOutcome {
  if (raw.type === THREAD_STARTER) return { kind: 'skipped', position, because: 'thread starter: a copy of the thread\'s root message, which is imported in its channel', channelId: placement.channelId, raw };
  const system = PERSON_MESSAGE_TYPES.has(raw.type) ? undefined : raw.type;
  const content = raw.content ?? '';
  const files = (raw.attachments ?? []).map(fileFacts);
  // A forward's own content is empty: what it carries is in forwardedMessage.
  const forwarded = raw.forwardedMessage ? textOf(raw.forwardedMessage, context.names) : '';
  const body = [textOf(raw, context.names), forwarded === '' ? '' : `[forwarded]\n${forwarded}`].filter((part) => part !== '').join('\n');
  const thread = threadOf(raw, placement, context);
  const mentions = mentionsOf(raw, content);
  const message: SourceMessage = {
    id: raw.id,
    channelId: placement.channelId,
    authorId: raw.author.id,
    ...(system ? { system } : {}),
    body,
    facts: compact({
      ts: raw.timestamp,
      time: isoOf(raw.timestamp),
      author: raw.author.id,
      authorKind: system ? ('system' as const) : raw.author.isBot === true ? ('bot' as const) : ('user' as const),
      thread,
      edited: raw.timestampEdited ? { time: isoOf(raw.timestampEdited) } : undefined,
      mentions,
      files: files.length > 0 ? files : undefined,
      reactions: raw.reactions && raw.reactions.length > 0 ? raw.reactions.map(reactionFacts) : undefined,
      pinned: raw.isPinned === true ? true : undefined,
      embeds: raw.embeds && raw.embeds.length > 0 ? raw.embeds : undefined,
      replyTo: raw.reference?.messageId ? compact({ id: raw.reference.messageId, channel: raw.reference.channelId ?? undefined }) : undefined,
      extra: pickExtra(raw, ['id', 'type', 'timestamp', 'timestampEdited', 'isPinned', 'content', 'author', 'attachments', 'embeds', 'stickers', 'reactions', 'mentions', 'reference'], ['inlineEmojis']),
    }),
    position,
  };
  return { kind: 'message', message };
}

/**
 * Threads: a thread's messages are replies to its root (the channel message whose id is the thread's, or
 * the root of that message's reply chain), except a forum post's first message, which has the thread's own
 * id and becomes the root. An inline reply
 * (`reference` to a message of the same channel) joins the thread of the chain it answers.
 */
function threadOf(raw: DiscordMessage, placement: DiscordPlacement, context: DiscordMessageContext): SourceMessage['facts']['thread'] {
  if (placement.threadId !== undefined) {
    if (raw.id === placement.threadId) return { root: raw.id, isRoot: true };
    // A thread opened on an inline reply joins that reply's chain: the platform has one level of threads.
    const root = context.roots.rootOf(placement.threadId);
    context.roots.note(raw.id, root);
    return { root, isRoot: false };
  }
  const root = noteReplyChain(raw, placement.channelId, context.roots);
  if (root !== raw.id) return { root, isRoot: false };
  const announced = threadCreatedFor(raw, context.threadIds);
  // The note of a thread started without a message keeps the thread's id: an --after export lacks the note, and its replies name the thread.
  if (announced !== undefined && context.threadRoots.get(announced) === raw.id) return { root: raw.id, isRoot: true, threadId: announced };
  return context.threadIds.has(raw.id) || context.answeredSystemMessages.has(raw.id) ? { root: raw.id, isRoot: true } : undefined;
}

/**
 * The thread a `ThreadCreated` message announces, when the export has its file: a thread started without
 * a message (its id is its own, no channel message has it) has this note as its root in the channel.
 */
export function threadCreatedFor(raw: Pick<DiscordMessage, 'type' | 'reference'>, threadIds: ReadonlySet<string>): string | undefined {
  const thread = raw.type === THREAD_CREATED ? raw.reference?.channelId : undefined;
  return thread && threadIds.has(thread) ? thread : undefined;
}

/**
 * A message of a channel's own file noted in its channel's reply chains; returns the root of its chain
 * (its own id unless it is an inline reply to a message of the same channel). Pass 1 notes the same, to
 * know before the messages pass where each thread's replies go.
 */
export function noteReplyChain(raw: Pick<DiscordMessage, 'id' | 'type' | 'reference'>, channelId: string, roots: ReplyRoots): string {
  const referenced = raw.reference?.messageId;
  const root = raw.type === 'Reply' && referenced && (raw.reference?.channelId ?? channelId) === channelId ? roots.rootOf(referenced) : raw.id;
  roots.note(raw.id, root);
  return root;
}

function mentionsOf(raw: DiscordMessage, content: string): SourceMessage['facts']['mentions'] {
  const tokens = mentionedIds(content);
  const users = [...new Set([...tokens.users, ...(raw.mentions ?? []).map((m) => m.id)])];
  const mentions = compact({ users: users.length > 0 ? users : undefined, channels: tokens.channels.length > 0 ? tokens.channels : undefined, groups: tokens.roles.length > 0 ? tokens.roles : undefined });
  return Object.keys(mentions).length === 0 ? undefined : mentions;
}

function fileFacts(a: NonNullable<DiscordMessage['attachments']>[number]): FileFacts {
  return compact({ id: a.id ?? undefined, name: a.fileName ?? undefined, sizeBytes: a.fileSizeBytes ?? undefined, url: a.url ?? undefined, state: 'available' as const, extra: pickExtra(a, ['id', 'fileName', 'fileSizeBytes', 'url']) });
}

function reactionFacts(r: NonNullable<DiscordMessage['reactions']>[number]): ReactionFacts {
  const code = r.emoji.code ?? r.emoji.name ?? r.emoji.id ?? '?';
  return compact({ emoji: code, name: r.emoji.name ?? code, users: (r.users ?? []).map((u) => u.id), count: r.count ?? r.users?.length ?? 0 });
}

/** A message's (or a forwarded message's) text, files and stickers; with none of these, its embeds. */
function textOf(m: Pick<DiscordMessage, 'content' | 'attachments' | 'stickers' | 'embeds'>, names: DiscordNames): string {
  const text = [
    discordToText(m.content ?? '', names),
    ...(m.attachments ?? []).map((a) => `[file: ${a.fileName ?? a.id ?? 'file'}]${a.url ? ` ${a.url}` : ''}`),
    ...(m.stickers ?? []).map((s) => `[sticker: ${s.name ?? s.id}]`),
  ]
    .filter((line) => line !== '')
    .join('\n');
  return text === '' ? embedsText(m.embeds ?? []) : text;
}

/** A message with no text of its own (a link preview, a bot's card): its embeds' titles and descriptions. */
function embedsText(embeds: unknown[]): string {
  return embeds
    .map((e) => {
      const { title, description, url } = (e ?? {}) as { title?: unknown; description?: unknown; url?: unknown };
      return [title, description, url].filter((x): x is string => typeof x === 'string' && x !== '').join('\n');
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** DiscordChatExporter writes local offsets (`2021-03-04T05:06:07.89+01:00`): the UTC instant. */
function isoOf(timestamp: string): string {
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? timestamp : isoOfEpochMs(ms);
}

/** Discord's epoch (2015-01-01T00:00:00Z): a snowflake's top 42 bits are milliseconds since it. */
const DISCORD_EPOCH_MS = 1_420_070_400_000n;

/** When a snowflake was made: a message's or a thread's creation time, in ms since 1970. */
export function snowflakeTimeMs(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH_MS);
}

/** The subtype of the root chatport puts where a thread's deleted starter message was. */
export const DELETED_STARTER = 'ThreadStarterDeleted';

/**
 * The root of a thread whose starter message was deleted (pass 1 found no record of it where the export
 * covers its time): what Discord shows in its place, "Original message was deleted" with the thread on it,
 * at the starter's time (the thread's id is the starter's, a snowflake). It takes the starter's id, so its
 * key is the one the starter would have had and the thread's messages are its replies.
 */
export function deletedStarterRoot(thread: DiscordChannel, channelId: string, position: ExportPosition): MessageOutcome {
  const time = isoOfEpochMs(snowflakeTimeMs(thread.id));
  const message: SourceMessage = {
    id: thread.id,
    channelId,
    system: DELETED_STARTER,
    body: thread.name ? `Original message was deleted (thread: ${thread.name})` : 'Original message was deleted',
    facts: compact({ ts: time, time, authorKind: 'system' as const, thread: { root: thread.id, isRoot: true }, extra: compact({ thread: compact({ id: thread.id, name: thread.name ?? undefined }) }) }),
    position,
  };
  return { kind: 'message', message };
}
