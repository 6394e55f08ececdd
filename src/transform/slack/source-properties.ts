/**
 * The one properties key under which every source fact is kept: `properties.source`. The shape is shared
 * by every source system (Slack today; Discord, Mattermost or a CSV of another platform later), so
 * whatever reads the platform can tell where a record came from without knowing the source. The fields
 * common to all systems come first; system-specific facts follow; `extra` holds every other field of
 * the source record unchanged, so nothing known is dropped. Documented in docs/source-properties.md.
 */
export const SOURCE_PROPERTY = 'source';

export interface SourceFactsBase {
  /** The source system: `slack`, later `discord`, `mattermost`, `csv`. */
  system: string;
  kind: 'user' | 'channel' | 'message';
  /** The record's id in the source system, unique per kind within the workspace. */
  id: string;
  /** The source workspace (Slack team id, Discord guild id, …). */
  workspace: string;
  /** Every other field of the source record, unchanged (minus those listed as dropped in the docs). */
  extra?: Record<string, unknown>;
}

export interface UserSourceFacts extends SourceFactsBase {
  kind: 'user';
  /** The handle in the source (the imported `name` may differ after being made valid and unique). */
  handle?: string;
  /** person, bot, app, or placeholder (referenced by messages or channels but absent from the user list). */
  userKind: 'person' | 'bot' | 'app' | 'placeholder';
  deleted: boolean;
  /** Why the user is a guest in the source, when it is one. */
  guest?: string;
  roles?: string[];
  realName?: string;
  displayName?: string;
  email?: string;
  title?: string;
  timeZone?: { name?: string; label?: string; offsetSeconds?: number };
  /** The bot's own id when the user is a bot (Slack `B…`). */
  botId?: string;
  placeholder?: { reason: string; firstSeenIn?: string };
}

export interface TextWithAuthor {
  text: string;
  /** Source user id of who set it. */
  setBy?: string;
  /** ISO 8601 UTC. */
  setAt?: string;
}

export interface ChannelSourceFacts extends SourceFactsBase {
  kind: 'channel';
  /** The source's kind of conversation: Slack `channel`, `group`, `dm`, `mpim`. */
  conversationType: string;
  /** The source's channel name (the imported name may differ after being made valid and unique). */
  name?: string;
  /** ISO 8601 UTC. */
  created?: string;
  /** Source user id. */
  creator?: string;
  archived: boolean;
  general?: boolean;
  topic?: TextWithAuthor;
  purpose?: TextWithAuthor;
  /** Source user ids of the members, as the source lists them. */
  memberIds?: string[];
  /** When the platform type is not the natural one (a group DM over 10 people became PRIVATE). */
  typeChange?: { from: string; to: string; reason: string };
}

export interface FileFacts {
  id?: string;
  name?: string;
  title?: string;
  mimetype?: string;
  sizeBytes?: number;
  /** Where the source served the file, with any access token removed. Not fetched by the import. */
  url?: string;
  /** available, deleted (Slack tombstone), or hidden (Slack plan limit). */
  state: 'available' | 'deleted' | 'hidden';
  extra?: Record<string, unknown>;
}

export interface ReactionFacts {
  /** The emoji code without skin tone, e.g. `thumbsup`. */
  emoji: string;
  /** Skin tone 2–6 when the source gave one. */
  skinTone?: number;
  /** The code exactly as the source wrote it, e.g. `thumbsup::skin-tone-3`. */
  name: string;
  /** Source user ids. */
  users: string[];
  count: number;
}

export interface MessageSourceFacts extends SourceFactsBase {
  kind: 'message';
  /** Source channel id. */
  channel: string;
  /** The source's own timestamp, exactly (Slack ts). */
  ts: string;
  /** ISO 8601 UTC send time: the import has no timestamp field. */
  time: string;
  /** Source user id of the sender; for bots the bot's id when it has no user. */
  author?: string;
  authorKind?: 'user' | 'bot' | 'system';
  /** Slack subtype (`channel_join`, `bot_message`, …) when there is one. */
  subtype?: string;
  thread?: {
    /** Source id of the thread's root message (the same as `id` on the root itself). */
    root: string;
    isRoot: boolean;
    replyCount?: number;
    /** Also posted to the channel (Slack thread_broadcast). */
    broadcast?: boolean;
    /** The root is not in the export (deleted, or outside the exported range). */
    rootMissing?: boolean;
    /**
     * On a root whose thread has a source id of its own (a Discord thread started without a message: its
     * `ThreadCreated` note is the root): that id, by which a later export's replies name the thread.
     */
    threadId?: string;
  };
  /**
   * On the channel copy of a reply also sent to the channel (Slack thread_broadcast): the reply's source id
   * and its thread's root. The copy carries no `thread`: it is a channel message, not a reply.
   */
  broadcastOf?: { reply: string; root: string };
  edited?: { by?: string; ts?: string; time?: string };
  mentions?: { users?: string[]; channels?: string[]; groups?: string[]; broadcasts?: string[] };
  files?: FileFacts[];
  reactions?: ReactionFacts[];
  /** A message longer than the body limit is imported as consecutive parts (see docs). */
  part?: { index: number; count: number };
  /** A second message with the same ts in one conversation (broken exports): its occurrence number. */
  occurrence?: number;
  /** This message's ts is earlier than the one imported before it in the same conversation. */
  outOfOrder?: boolean;
  /** Pinned in its channel (Discord `isPinned`, Mattermost `is_pinned`). */
  pinned?: boolean;
  /** Link previews and rich cards, as the source wrote them (Discord embeds, Mattermost `props.attachments`). */
  embeds?: unknown[];
  /** The message this one answers in the source (Discord `reference`): `{id, channel?}`. */
  replyTo?: { id: string; channel?: string };
}

export type SourceFacts = UserSourceFacts | ChannelSourceFacts | MessageSourceFacts;

/**
 * Record fields not consumed by the mapping and not in `drop`, for `extra`, without the access tokens
 * their URLs may carry (withoutUrlTokens); undefined when none remain.
 */
export function pickExtra(record: Record<string, unknown>, consumed: KeyList, drop: KeyList = []): Record<string, unknown> | undefined {
  // Keys one by one, not Object.entries: this runs for every message, and the pairs were its main cost.
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (value === undefined || isListed(consumed, key) || isListed(drop, key)) continue;
    (extra ??= {})[key] = withoutUrlTokens(value);
  }
  return extra;
}

/** Field names: a Set where the list is looked up for every message's every field. */
export type KeyList = readonly string[] | ReadonlySet<string>;
const isListed = (list: KeyList, key: string): boolean => ('has' in list ? list.has(key) : list.includes(key));

/** A Slack access token as a URL's query parameter (`?t=xoxe-…`), with the `&` that follows it. */
const URL_TOKEN = /([?&])t=xox[a-z]-[^&#\s"]*(&?)/g;

/**
 * The value with every Slack access token taken out of the URLs it holds: file previews, conversions
 * (`mp4`, `hls`, `converted_pdf`, `thumb_*_gif`) and attachment images carry `?t=xoxe-…`, a credential
 * that must never reach the platform. Other `t=` parameters (a video's start time) stay. The same value,
 * not a copy, when it holds none.
 */
export function withoutUrlTokens(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('t=xox') ? value.replace(URL_TOKEN, (_token, before: string, after: string) => (after ? before : '')) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const scrubbed = withoutUrlTokens(value[i]);
      if (scrubbed !== value[i]) (copy ??= value.slice())[i] = scrubbed;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    const scrubbed = withoutUrlTokens(field);
    if (scrubbed !== field) (copy ??= { ...(value as Record<string, unknown>) })[key] = scrubbed;
  }
  return copy ?? value;
}

/**
 * The object without its undefined fields, so items serialize the same way every time and stay small.
 * A new object built by adding fields in order, not `delete` on the given one: a delete turns an object
 * into a slow dictionary-mode one (bigger, and slower to serialize), and this runs several times per
 * message.
 */
export function compact<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  // for…in, not Object.keys: no array of keys per call; the same order, as what is passed are plain objects.
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) out[key] = field;
  }
  return out as T;
}
