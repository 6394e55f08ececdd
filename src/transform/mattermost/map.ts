import { createHash } from 'node:crypto';
import type { ExportPosition, MessageOutcome, SourceChannel, SourceMessage, SourceUser } from '../chat-export/index.js';
import { compact, pickExtra, type FileFacts, type ReactionFacts } from '../slack/source-properties.js';
import type { MattermostBot, MattermostChannel, MattermostDirectPost, MattermostPost, MattermostReply, MattermostUser } from './records.js';
import { isoOfEpochMs } from '../../shared/iso-time.js';
import { ROOT_POSTS, postSlotOf, type PostIds } from './post-keys.js';

/**
 * Mattermost bulk export records → the neutral model. Ids: a user is its username; a team channel
 * `<team>/<name>`; a direct or group conversation `dm/<its members' usernames, sorted, comma-joined>`; a
 * post `<channel>/<create_at>/<author>/<8 hex digits of its text>`. Mattermost's own import takes two posts
 * of one channel, time, author and text for the same post, and so does chatport (counted as duplicates).
 */
export const teamChannelId = (team: string, name: string) => `${team}/${name}`;
export const directChannelId = (members: readonly string[]) => `dm/${[...new Set(members)].sort().join(',')}`;

export function postId(channelId: string, post: MattermostReply): string {
  return `${postSlot(channelId, post)}/${createHash('sha1').update(post.message).digest('hex').slice(0, 8)}`;
}

/** A post's id without its text's hash: what an edit keeps (post-keys.ts `postSlotOf`). */
export const postSlot = (channelId: string, post: MattermostReply): string => `${channelId}/${post.create_at}/${post.user}`;

export function mattermostUser(user: MattermostUser, position: ExportPosition): SourceUser {
  const roles = (user.roles ?? '').split(/\s+/).filter(Boolean);
  const realName = [user.first_name, user.last_name].filter((x) => x && x.trim() !== '').join(' ');
  return {
    id: user.username,
    handle: user.username,
    displayName: nonBlank(user.nickname) ?? nonBlank(realName) ?? user.username,
    kind: user.is_bot === true || roles.includes('system_bot') ? 'bot' : 'person',
    isGuest: roles.includes('system_guest'),
    facts: compact({
      deleted: (user.delete_at ?? 0) > 0,
      guest: roles.includes('system_guest') ? 'system_guest' : undefined,
      roles: roles.length > 0 ? roles : undefined,
      realName: nonBlank(realName),
      displayName: nonBlank(user.nickname),
      email: nonBlank(user.email),
      title: nonBlank(user.position),
      extra: pickExtra(user, ['username', 'email', 'nickname', 'first_name', 'last_name', 'position', 'roles', 'delete_at', 'is_bot', 'teams', 'password']),
    }),
    position,
  };
}

/** A `bot` line's account: a bot user, its owner kept in extra. */
export function mattermostBot(bot: MattermostBot, position: ExportPosition): SourceUser {
  return {
    id: bot.username,
    handle: bot.username,
    displayName: nonBlank(bot.display_name) ?? bot.username,
    kind: 'bot',
    facts: compact({
      deleted: (bot.delete_at ?? 0) > 0,
      displayName: nonBlank(bot.display_name),
      extra: pickExtra(bot, ['username', 'display_name', 'delete_at']),
    }),
    position,
  };
}

export function mattermostChannel(channel: MattermostChannel, members: string[], teamName: string | undefined, position: ExportPosition): SourceChannel {
  return {
    id: teamChannelId(channel.team, channel.name),
    conversationType: channel.type,
    natural: channel.type === 'O' ? 'PUBLIC' : 'PRIVATE',
    name: channel.name,
    ...(channel.display_name ? { displayName: channel.display_name } : {}),
    memberIds: members,
    facts: compact({
      archived: (channel.deleted_at ?? 0) > 0,
      topic: nonBlank(channel.header) ? { text: channel.header! } : undefined,
      purpose: nonBlank(channel.purpose) ? { text: channel.purpose! } : undefined,
      extra: compact({ ...pickExtra(channel, ['team', 'name', 'display_name', 'type', 'header', 'purpose', 'deleted_at']), team: teamName === undefined ? channel.team : { name: channel.team, displayName: teamName } }),
    }),
    position,
  };
}

export function mattermostDirectChannel(members: string[], header: string | null | undefined, position: ExportPosition): SourceChannel {
  const unique = [...new Set(members)];
  return {
    id: directChannelId(unique),
    conversationType: unique.length > 2 ? 'G' : 'D',
    natural: 'DIRECT',
    name: `dm-${[...unique].sort().join('-')}`,
    memberIds: unique,
    facts: compact({ topic: nonBlank(header) ? { text: header! } : undefined }),
    position,
  };
}

/** What the text conversion needs: platform names of users and of a team's channels. */
export interface MattermostNames {
  user(username: string): string | undefined;
  /** True for a bot account (a `bot` line, `is_bot`, the system_bot role): its posts are `authorKind: bot`. */
  isBot?(username: string): boolean;
  channel(team: string | undefined, name: string): string | undefined;
}

/**
 * A post and its replies as messages, the root first, replies by `create_at` (ties in the order the export
 * lists them), each marked with its thread. `team` is undefined for a direct post. `ids` tells apart
 * messages of one channel, time, author and text in different threads; `siblings`, the ids of the root
 * posts of its slot when there are others (post-keys.ts).
 */
export function mattermostThread(post: MattermostPost | MattermostDirectPost, channelId: string, team: string | undefined, names: MattermostNames, position: ExportPosition, ids?: PostIds, siblings?: readonly string[]): MessageOutcome[] {
  const idOf = (p: MattermostReply, thread: string) => (ids ? ids.idOf(postId(channelId, p), thread) : postId(channelId, p));
  const rootId = idOf(post, ROOT_POSTS);
  // Mattermost lists a post's replies by post id, which is random, not by time (GetRepliesForExport).
  const replies = [...(post.replies ?? [])].sort((a, b) => a.create_at - b.create_at);
  const root = mattermostMessage(post, channelId, rootId, team, names, position, replies.length > 0 ? { root: rootId, isRoot: true, replyCount: replies.length } : undefined);
  if (siblings !== undefined && root.kind === 'message') root.message.slotSiblings = siblings;
  const answers = replies.map((reply) => mattermostMessage(reply, channelId, idOf(reply, rootId), team, names, position, { root: rootId, isRoot: false }));
  withThreadSiblings(answers);
  return [root, ...answers];
}

/** A thread's replies of one slot (author, millisecond) that are more than one: each carries their ids, in order (a duplicate once). */
function withThreadSiblings(replies: MessageOutcome[]): void {
  const slots = new Map<string, SourceMessage[]>();
  for (const reply of replies) {
    if (reply.kind !== 'message') continue;
    const slot = postSlotOf(reply.message.id);
    if (slot !== undefined) (slots.get(slot) ?? slots.set(slot, []).get(slot)!).push(reply.message);
  }
  for (const messages of slots.values()) {
    if (messages.length < 2) continue;
    const siblings = [...new Set(messages.map((m) => m.id))];
    for (const message of messages) message.slotSiblings = siblings;
  }
}

function mattermostMessage(post: MattermostReply, channelId: string, id: string, team: string | undefined, names: MattermostNames, position: ExportPosition, thread: SourceMessage['facts']['thread']): MessageOutcome {
  const system = post.type && post.type.startsWith('system_') ? post.type : undefined;
  const files = (post.attachments ?? []).map((a): FileFacts => ({ name: a.path.slice(a.path.lastIndexOf('/') + 1), url: a.path, state: 'available' }));
  const { text, mentioned } = mattermostToText(post.message, team, names);
  const embeds = Array.isArray(post.props?.attachments) ? (post.props.attachments as unknown[]) : undefined;
  const body = [text, ...files.map((f) => `[file: ${f.name}] ${f.url}`)].filter((l) => l !== '').join('\n');
  const message: SourceMessage = {
    id,
    channelId,
    authorId: post.user,
    ...(system ? { system } : {}),
    body: body === '' && embeds ? embedsText(embeds) : body,
    facts: compact({
      ts: String(post.create_at),
      time: isoOfEpochMs(post.create_at),
      author: post.user,
      authorKind: system ? ('system' as const) : names.isBot?.(post.user) ? ('bot' as const) : ('user' as const),
      thread,
      edited: (post.edit_at ?? 0) > 0 ? { time: isoOfEpochMs(post.edit_at!) } : undefined,
      mentions: mentioned.length > 0 ? { users: mentioned } : undefined,
      files: files.length > 0 ? files : undefined,
      reactions: reactionsOf(post.reactions ?? []),
      pinned: post.is_pinned === true ? true : undefined,
      embeds,
      extra: compact({ ...pickExtra(post, ['user', 'message', 'create_at', 'edit_at', 'type', 'props', 'reactions', 'attachments', 'is_pinned', 'replies', 'team', 'channel', 'channel_members']), props: propsExtra(post.props) }),
    }),
    position,
  };
  return { kind: 'message', message };
}

const MENTION = /(^|[^\w@.-])@([a-z0-9][a-z0-9._-]{0,63})/gi;
const CHANNEL_LINK = /(^|[^\w~])~([a-z0-9][a-z0-9_-]{0,63})/gi;

/**
 * Mentions `@username` become the name the user was imported as (it may differ: names are made valid and
 * unique), `~channel` links the channel's platform name as `#name`; `@channel`, `@here`, `@all` stay. Emoji
 * (`:smile:`) and Markdown read as text and stay.
 */
export function mattermostToText(message: string, team: string | undefined, names: MattermostNames): { text: string; mentioned: string[] } {
  const mentioned = new Set<string>();
  let text = message.replace(MENTION, (whole, before: string, handle: string) => {
    const lower = handle.replace(/[._-]+$/, '').toLowerCase();
    const name = names.user(lower);
    if (name === undefined) return whole;
    mentioned.add(lower);
    return `${before}@${name}${handle.slice(lower.length)}`;
  });
  if (team !== undefined) text = text.replace(CHANNEL_LINK, (whole, before: string, channel: string) => {
    const name = names.channel(team, channel.toLowerCase());
    return name === undefined ? whole : `${before}#${name}`;
  });
  return { text, mentioned: [...mentioned] };
}

function reactionsOf(reactions: NonNullable<MattermostReply['reactions']>): ReactionFacts[] | undefined {
  if (reactions.length === 0) return undefined;
  const byEmoji = new Map<string, string[]>();
  for (const r of reactions) byEmoji.set(r.emoji_name, [...(byEmoji.get(r.emoji_name) ?? []), r.user]);
  return [...byEmoji].map(([emoji, users]) => ({ emoji, name: emoji, users, count: users.length }));
}

function propsExtra(props: Record<string, unknown> | null | undefined): Record<string, unknown> | undefined {
  if (!props) return undefined;
  const { attachments: _attachments, ...rest } = props;
  return Object.keys(rest).length === 0 ? undefined : rest;
}

/** A message whose text is only message attachments (an integration's card): their fallback or text. */
function embedsText(embeds: unknown[]): string {
  return embeds
    .map((e) => {
      const { fallback, text, title } = (e ?? {}) as { fallback?: unknown; text?: unknown; title?: unknown };
      return [fallback, title, text].find((x): x is string => typeof x === 'string' && x !== '') ?? '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

function nonBlank(value: string | null | undefined): string | undefined {
  return value === null || value === undefined || value.trim() === '' ? undefined : value;
}
