import { CLEAN_TEXT, recordTextProblem, type TextMarks } from '../../shared/json-checks/export-text.js';
import { LIMITS, type MessageImportItem } from '../../wire/imports.js';
import { findAuthor } from './authors.js';
import { broadcastCopiesOf, wantsBroadcastCopy } from './broadcast-copy.js';
import { missingRootOf, underFoundRoot } from './earlier-root.js';
import type { Outcome, SlackMappingContext } from './context.js';
import type { RecordPosition } from './directory.js';
import { slackSourceKey } from './keys.js';
import { attachmentsText, blocksText, fileFactsOf, fileLine, reactionFactsOf } from './message-body.js';
import { splitBody } from '../split-body.js';
import { convertMrkdwn, type ConvertedText } from './mrkdwn.js';
import type { SlackMessage } from './records.js';
import { compareTs, parseSlackMessage, tsToIso, SLACK_TS } from './records.js';
import { SOURCE_PROPERTY, compact, pickExtra, type MessageSourceFacts } from './source-properties.js';
import { createThreadTracker, type ThreadTracker } from './threads.js';

/**
 * A message item whose channel is still named by its Slack id (`channelKey`): channel ids exist only
 * after the channels import. `resolveMessageChannel` fills `channelId` from the pipeline's map.
 */
export interface PendingMessage {
  channelKey: string;
  item: Omit<MessageImportItem, 'channelId'>;
  /** The Slack source key its idempotency key was made of (keys.ts). */
  sourceKey: string;
}

/** Subtypes whose messages are people's (or bots') content; every other subtype is a system message. */
const CONTENT_SUBTYPES = new Set(['me_message', 'file_share', 'file_comment', 'file_mention', 'thread_broadcast', 'reply_broadcast', 'bot_message']);
/**
 * Edit and delete events: some exports keep them beside the message they changed. The export's message
 * already holds the final text, so importing the event would duplicate it.
 */
const EVENT_SUBTYPES = new Set(['message_changed', 'message_deleted', 'message_replied']);
/**
 * System messages imported even when system messages are skipped: a tombstone stands in for a deleted
 * thread root, and without it the thread's replies would hang from nothing.
 */
const ALWAYS_IMPORTED = new Set(['tombstone']);

const CONSUMED: ReadonlySet<string> = new Set(['type', 'subtype', 'ts', 'user', 'bot_id', 'text', 'thread_ts', 'reply_count', 'edited', 'reactions', 'files', 'team']);
/**
 * Dropped as pure repetition: `blocks` is the rich-text form of `text` (the body when `text` is empty); `user_profile` repeats users.json
 * (or names the placeholder user); reply_users / reply_users_count / latest_reply are derivable from the
 * replies themselves.
 */
const DROPPED: ReadonlySet<string> = new Set(['blocks', 'user_profile', 'reply_users', 'reply_users_count', 'latest_reply']);

export interface SlackMessageMapper {
  /**
   * Maps one day file of one channel: messages sorted by ts (each outcome of a parsed one carries its ts), one outcome per source message (a message
   * split at the body limit is one outcome with several items). Call with a channel's day files in
   * date order; channels may follow each other but should not interleave (each open channel keeps its
   * thread bookkeeping until `endChannel`). `marks`: what the file's text showed (the messages are searched
   * for unreadable bytes or lone surrogates only when it showed some). `laterDay`: the date (YYYY-MM-DD) of the
   * conversation's next day file, or null when this is its last; a reply's root that a later day file may
   * still hold is then not called missing. Left out, every root not yet met is taken as missing.
   */
  mapDay(channelKey: string, file: string, messages: readonly unknown[], marks?: TextMarks, laterDay?: string | null): Outcome<PendingMessage>[];
  /**
   * A day file's outcomes as they leave the reorder window (src/pipeline/slack/day-order.ts): a reply marked
   * `rootMissing` whose root a later day file held after all (a root filed days after its reply, in exports
   * merged by hand) is mapped as if met in order (earlier-root.ts), so it goes into its thread. Nothing to do,
   * and no message looked at, in a conversation with no reply marked so.
   */
  settleMissingRoots(channelKey: string, outcomes: Array<Outcome<PendingMessage>>): void;
  /**
   * After the conversation's last day file (before `endChannel`): the replies that left the window still
   * marked `rootMissing` whose root a later day file held (too far for the window): orphans in the channel.
   */
  repliesBeforeLateRoots(channelKey: string): RepliesBeforeLateRoots | undefined;
  /**
   * The earliest ts of the conversation's first day file with a message (as filed): every message of an
   * earlier export of it, correctly filed by local date, is older. Undefined before that file is mapped.
   */
  firstTs(channelKey: string): string | undefined;
  /** Frees the channel's bookkeeping; call after its last day file. */
  endChannel(channelKey: string): void;
}

/** Replies filed further before their root than the reorder window reaches: how many, and the first. */
export interface RepliesBeforeLateRoots {
  count: number;
  first: RecordPosition;
}

interface ChannelState {
  lastTs: string | undefined;
  sameTsCount: number;
  /** Each distinct message of the latest ts, in occurrence order (index 0 is occurrence 1). */
  sameTsMessages: SlackMessage[];
  threads: ThreadTracker;
  /**
   * Roots that share their ts with an earlier message of the conversation (broken exports): ts → the root's
   * occurrence, so replies name the root (the message with thread_ts == ts), not the first of that ts.
   */
  repeatedTsRoots: Map<string, number>;
  /** The messages of the latest ts, for `shadowedRoots`. */
  tsGroup: TsGroup;
  /**
   * Roots that were skipped while another message of their ts was imported and no root of that ts was: a
   * reply naming `<channel>/<ts>` would land in that other message's thread. Only broken exports add any.
   */
  shadowedRoots: Set<string>;
  /** The earliest ts the conversation's next day file can hold (see `earliestTsOfDay`); undefined: none or not told. */
  laterDayFrom: string | undefined;
  /** The messages mapped from the current day file and the one before, in ts order, for `placeAmongEarlier`. */
  day: MappedMessage[];
  previousDay: MappedMessage[];
  /** Replies marked `rootMissing` so far (settleMissingRoots looks only when there are some). */
  rootMissingMarked: number;
  /** Root ts → the first reply that left the window still marked `rootMissing` (bounded as the thread tracker is). */
  orphansLeft: Map<string, RecordPosition>;
  firstTs: string | undefined;
}

/** A message as mapped: what a repeat of it in the next day file must come to. */
interface MappedMessage {
  message: SlackMessage;
  occurrence: number;
  outOfOrder: boolean;
}

/** What the messages of one ts came to, so far. */
interface TsGroup {
  ts: string | undefined;
  skippedRoot: boolean;
  imported: boolean;
  importedRoot: boolean;
}

/** The ref no message has, named by replies of a shadowed root: they become orphans, as replies of any skipped root. */
const SHADOWED_ROOT_SUFFIX = '~skipped';

export function createSlackMessageMapper(context: SlackMappingContext): SlackMessageMapper {
  const states = new Map<string, ChannelState>();
  const stateOf = (channelKey: string) => {
    let state = states.get(channelKey);
    if (state === undefined) {
      state = {
        lastTs: undefined, sameTsCount: 0, sameTsMessages: [], threads: createThreadTracker(context.maxTrackedThreadRoots), repeatedTsRoots: new Map(),
        tsGroup: { ts: undefined, skippedRoot: false, imported: false, importedRoot: false }, shadowedRoots: new Set(), laterDayFrom: undefined,
        day: [], previousDay: [], rootMissingMarked: 0, orphansLeft: new Map(), firstTs: undefined,
      };
      states.set(channelKey, state);
    }
    return state;
  };

  return {
    mapDay(channelKey, file, messages, marks = CLEAN_TEXT, laterDay) {
      const state = stateOf(channelKey);
      state.laterDayFrom = laterDay == null ? undefined : earliestTsOfDay(laterDay);
      state.previousDay = state.day;
      state.day = [];
      const outcomes: Outcome<PendingMessage>[] = [];
      const valid: { message: SlackMessage; position: RecordPosition; raw: unknown }[] = [];
      messages.forEach((raw, index) => {
        const position = { file, index };
        const unsendable = recordTextProblem(raw, marks);
        if (unsendable) return void outcomes.push({ outcome: 'rejected', position, field: unsendable.field ?? '', reason: unsendable.reason, raw: unsendable.raw });
        const parsed = parseSlackMessage(raw);
        if (parsed.ok) valid.push({ message: parsed.value, position, raw });
        else outcomes.push({ outcome: 'rejected', position, field: parsed.problem.field, reason: parsed.problem.reason, raw });
      });
      // Stable sort: equal ts keep file order, so occurrence numbers are deterministic.
      valid.sort((a, b) => compareTs(a.message.ts, b.message.ts) || a.position.index - b.position.index);
      state.firstTs ??= valid[0]?.message.ts;
      for (const { message, position, raw } of valid) {
        const outcome = mapMessage(message, position, channelKey, state, context, raw);
        outcome.ts = message.ts;
        noteTsGroup(state, message, outcome);
        outcomes.push(outcome);
      }
      return outcomes;
    },
    settleMissingRoots(channelKey, outcomes) {
      const state = states.get(channelKey);
      if (state === undefined || state.rootMissingMarked === 0) return;
      for (const [at, outcome] of outcomes.entries()) {
        if (outcome.outcome !== 'items') continue;
        const root = missingRootOf(outcome.items);
        if (root === undefined) continue;
        const rootTs = root.slice(root.lastIndexOf('/') + 1);
        if (!state.threads.isCertainlyMissing(rootTs)) outcomes[at] = { ...outcome, items: underFoundRoot(outcome.items, context, rootRefOf(channelKey, rootTs, state, false)) };
        else if (!state.orphansLeft.has(rootTs) && state.orphansLeft.size < context.maxTrackedThreadRoots) state.orphansLeft.set(rootTs, outcome.position);
      }
    },
    repliesBeforeLateRoots(channelKey) {
      const state = states.get(channelKey);
      let found: RepliesBeforeLateRoots | undefined;
      for (const [rootTs, position] of state?.orphansLeft ?? []) {
        if (state!.threads.isCertainlyMissing(rootTs)) continue;
        found ??= { count: 0, first: position };
        found.count++;
      }
      return found;
    },
    firstTs: (channelKey) => states.get(channelKey)?.firstTs,
    endChannel(channelKey) {
      states.delete(channelKey);
    },
  };
}

/**
 * A message with the ts of the one before: the occurrence of an identical earlier one (the same record
 * twice, as in exports merged from overlapping ones), so it gets that one's key and item and the stage's
 * duplicate check counts it a duplicate instead of importing it again; else the next occurrence (two
 * messages that share a ts, each imported). Only messages of one ts are compared, so this is rare.
 */
function occurrenceOfRepeat(state: ChannelState, message: SlackMessage): number {
  const text = JSON.stringify(message);
  const same = state.sameTsMessages.findIndex((earlier) => JSON.stringify(earlier) === text);
  if (same >= 0) return same + 1;
  state.sameTsMessages.push(message);
  return ++state.sameTsCount;
}

/**
 * A message earlier than one mapped before it: a message near midnight filed in two day files (exports merged
 * across a time zone change) is met again after later ones. Identical to a message of its ts in this or the
 * previous day file, it is that message (its occurrence and order, so the same item: the stage counts it a
 * duplicate); else the next occurrence of its ts there, out of order. Only these two day files are compared.
 */
function placeAmongEarlier(state: ChannelState, message: SlackMessage): { occurrence: number; outOfOrder: boolean } {
  const sameTs = [...ofTs(state.previousDay, message.ts), ...ofTs(state.day, message.ts)];
  if (sameTs.length === 0) return { occurrence: 1, outOfOrder: true };
  const text = JSON.stringify(message);
  const same = sameTs.find((earlier) => JSON.stringify(earlier.message) === text);
  if (same !== undefined) return { occurrence: same.occurrence, outOfOrder: same.outOfOrder };
  return { occurrence: Math.max(...sameTs.map((earlier) => earlier.occurrence)) + 1, outOfOrder: true };
}

/** The messages of `ts` in a day's mapped messages (in ts order): a binary search, as a day may be long. */
function ofTs(day: readonly MappedMessage[], ts: string): MappedMessage[] {
  let low = 0;
  let high = day.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareTs(day[mid]!.message.ts, ts) < 0) low = mid + 1;
    else high = mid;
  }
  const found: MappedMessage[] = [];
  for (let at = low; at < day.length && compareTs(day[at]!.message.ts, ts) === 0; at++) found.push(day[at]!);
  return found;
}

/** Why a content message is skipped as empty; null file entries (left out by the parse) are named, not denied. */
function emptyReason(raw: unknown): string {
  const files = (raw as { files?: unknown }).files;
  const nulls = Array.isArray(files) ? files.filter((f) => f === null).length : 0;
  if (nulls === 0) return 'empty message: no text, files or attachments';
  return `empty message: no text, attachments or files (its ${nulls} file ${nulls === 1 ? 'entry is' : 'entries are'} null: deleted or not exported)`;
}

function mapMessage(message: SlackMessage, position: RecordPosition, channelKey: string, state: ChannelState, context: SlackMappingContext, raw: unknown): Outcome<PendingMessage> {
  const { directory } = context;
  // A root is in the export even when it is skipped below; its replies must not be marked rootMissing.
  if (message.thread_ts !== undefined && message.thread_ts === message.ts) state.threads.noteRoot(message.ts);
  if (message.type !== undefined && message.type !== 'message') return { outcome: 'skipped', position, reason: `not a message record (type "${message.type}")`, raw: message };
  if (message.subtype !== undefined && EVENT_SUBTYPES.has(message.subtype))
    return { outcome: 'skipped', position, reason: `edit event ${message.subtype}: the export already holds the final message`, raw: message };

  const isContent = message.subtype === undefined || CONTENT_SUBTYPES.has(message.subtype);
  if (!isContent && context.systemMessages === 'skip' && !ALWAYS_IMPORTED.has(message.subtype ?? '')) return { outcome: 'skipped', position, reason: `system message: ${message.subtype}`, raw: message };

  // Ordering bookkeeping: a repeated ts gets an occurrence number so its key differs from the first.
  let occurrence = 1;
  let outOfOrder = false;
  if (state.lastTs !== undefined) {
    const order = compareTs(message.ts, state.lastTs);
    if (order === 0) occurrence = occurrenceOfRepeat(state, message);
    else if (order < 0) outOfOrder = true;
  }
  if (state.lastTs === undefined || compareTs(message.ts, state.lastTs) > 0) {
    state.lastTs = message.ts;
    state.sameTsCount = 1;
    state.sameTsMessages = [message];
  }
  if (outOfOrder) ({ occurrence, outOfOrder } = placeAmongEarlier(state, message));
  state.day.push({ message, occurrence, outOfOrder });

  const author = findAuthor(message);
  const authorId = author.kind === 'none' ? undefined : author.kind === 'bot' && author.botId !== undefined ? (directory.botUsers.get(author.botId) ?? author.id) : author.id;
  const sender = authorId === undefined ? undefined : directory.users.get(authorId);
  // A content message with no author at all (rare integration leftovers) is kept as a system message.
  const type: MessageImportItem['type'] = isContent && sender !== undefined ? 'TEXT' : 'SYSTEM_TEXT';

  const converted = convertMrkdwn(message.text !== undefined && message.text.trim() !== '' ? message.text : blocksText(message.blocks), context.mentions);
  const files = (message.files ?? []).map(fileFactsOf);
  const lines = [converted.text.trim() === '' ? attachmentsText(message) : converted.text, ...files.map(fileLine)].filter((l) => l.trim() !== '');
  let body = lines.join('\n');
  if (body === '') {
    // raw: the record as read, which shows the null file entries the reason names.
    if (isContent) return { outcome: 'skipped', position, reason: emptyReason(raw), raw };
    body = `(${message.subtype})`;
  }

  const id = `${channelKey}/${message.ts}`;
  if (occurrence > 1 && message.thread_ts === message.ts) state.repeatedTsRoots.set(message.ts, occurrence);
  const thread = threadFactsOf(message, channelKey, state);
  const facts: MessageSourceFacts = compact({
    system: 'slack',
    kind: 'message' as const,
    id: occurrence > 1 ? `${id}~${occurrence}` : id,
    workspace: directory.teamId,
    channel: channelKey,
    ts: message.ts,
    time: tsToIso(message.ts),
    author: authorId,
    authorKind: author.kind === 'none' ? ('system' as const) : author.kind,
    subtype: message.subtype,
    thread,
    edited: message.edited === undefined ? undefined : compact({ by: message.edited.user, ts: message.edited.ts, time: message.edited.ts !== undefined && SLACK_TS.test(message.edited.ts) ? tsToIso(message.edited.ts) : undefined }),
    mentions: hasMentions(converted.mentions) ? compact(nonEmptyLists(converted.mentions)) : undefined,
    files: files.length === 0 ? undefined : files,
    reactions: message.reactions === undefined || message.reactions.length === 0 ? undefined : message.reactions.map(reactionFactsOf),
    occurrence: occurrence > 1 ? occurrence : undefined,
    outOfOrder: outOfOrder ? true : undefined,
    extra: pickExtra(message, CONSUMED, DROPPED),
  });

  const team = directory.teamId;
  const parts = splitBody(body, LIMITS.bodyLength);
  const items = parts.map((part, i): PendingMessage => {
    const partFacts: MessageSourceFacts =
      parts.length === 1
        ? facts
        : i === 0
          ? { ...facts, part: { index: 1, count: parts.length } }
          : compact({ system: 'slack', kind: 'message' as const, id: facts.id, workspace: team, channel: channelKey, ts: message.ts, time: facts.time, author: facts.author, thread: facts.thread, part: { index: i + 1, count: parts.length } });
    const sourceKey = slackSourceKey.message(team, channelKey, message.ts, occurrence, i + 1);
    const item: PendingMessage['item'] = { type, body: part, properties: { [SOURCE_PROPERTY]: partFacts }, idempotencyKey: context.keyFor('messages', sourceKey) };
    if (type === 'TEXT') item.user = sender!.username;
    return { channelKey, item, sourceKey };
  });
  if (wantsBroadcastCopy(message.subtype, thread, context)) items.push(...broadcastCopiesOf(items, context, occurrence));
  return { outcome: 'items', position, items };
}

/** Notes what a message came to in its ts group, and whether the group's skipped root is shadowed. */
function noteTsGroup(state: ChannelState, message: SlackMessage, outcome: Outcome<PendingMessage>): void {
  const group = state.tsGroup;
  if (group.ts !== message.ts) Object.assign(group, { ts: message.ts, skippedRoot: false, imported: false, importedRoot: false });
  const isRoot = message.thread_ts === message.ts;
  if (outcome.outcome === 'items') {
    group.imported = true;
    group.importedRoot ||= isRoot;
  } else group.skippedRoot ||= isRoot;
  if (group.skippedRoot && group.imported && !group.importedRoot) state.shadowedRoots.add(message.ts);
  else state.shadowedRoots.delete(message.ts);
}

/** The ref a message names its thread's root by: the root's own id (an occurrence suffix when an earlier message has its ts). */
function rootRefOf(channelKey: string, rootTs: string, state: ChannelState, isRoot: boolean): string {
  if (!isRoot && state.shadowedRoots.has(rootTs)) return `${channelKey}/${rootTs}${SHADOWED_ROOT_SUFFIX}`;
  const occurrence = state.repeatedTsRoots.get(rootTs);
  return `${channelKey}/${rootTs}${occurrence === undefined ? '' : `~${occurrence}`}`;
}

function threadFactsOf(message: SlackMessage, channelKey: string, state: ChannelState): MessageSourceFacts['thread'] {
  if (message.thread_ts === undefined) return undefined;
  const isRoot = message.thread_ts === message.ts;
  const rootMissing = !isRoot && state.threads.isCertainlyMissing(message.thread_ts) && !mayBeInLaterDay(message.thread_ts, state);
  if (rootMissing) state.rootMissingMarked++;
  return compact({
    // As messageRefOf reads the root's id.
    root: rootRefOf(channelKey, message.thread_ts, state, isRoot),
    isRoot,
    replyCount: isRoot ? message.reply_count : undefined,
    broadcast: message.subtype === 'thread_broadcast' ? true : undefined,
    rootMissing: rootMissing ? true : undefined,
  });
}

/**
 * A day file holds the messages of its date in the workspace's time zone, which starts at most 14 hours
 * before that date's UTC midnight (UTC+14). A root at or after that instant may sit in a later day file
 * than its reply (a reply filed under an earlier day than its root, in broken or re-assembled exports):
 * calling it missing would put the reply in the channel for good, though the root is in the export.
 */
function mayBeInLaterDay(rootTs: string, state: ChannelState): boolean {
  return state.laterDayFrom !== undefined && compareTs(rootTs, state.laterDayFrom) >= 0;
}

/** Slack ts of the earliest instant a day file of `date` (YYYY-MM-DD) can hold; undefined for a name that is no date. */
function earliestTsOfDay(date: string): string | undefined {
  const midnight = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(midnight) ? undefined : `${midnight / 1000 - 14 * 3600}.000000`;
}

function hasMentions(m: ConvertedText['mentions']): boolean {
  return m.users.length > 0 || m.channels.length > 0 || m.groups.length > 0 || m.broadcasts.length > 0;
}

function nonEmptyLists(m: Record<string, string[]>): Record<string, string[]> {
  // A loop, not Object.fromEntries(Object.entries(…).filter(…)): no pair arrays per message.
  const out: Record<string, string[]> = {};
  for (const key in m) if (m[key]!.length > 0) out[key] = m[key]!;
  return out;
}
