import type { ChatportClient, Message } from '../../api/index.js';
import { isNotFoundError } from '../../api/index.js';
import type { StageConfig } from '../../config/index.js';
import { replyKeyOf } from '../import/replies/index.js';
import type { RootThreads } from '../import/replies/roots.js';
import { inOrderAhead } from '../../shared/in-order-ahead.js';
import { where } from './describe.js';
import { keyHashText, slotHash, type ExpectedReplies } from './expected-replies.js';
import { postSlotOf } from '../../transform/mattermost/post-keys.js';
import { MessageIdSet } from './key-set.js';
import type { Interner } from './message-columns.js';
import { messageContentDifferences, type SourceMessage, type StreamedOrdinals } from './source-messages.js';
import type { Difference } from './types.js';
import { appendAll } from '../../shared/append-all.js';
import { Uint32List } from '../../shared/typed-arrays.js';

/**
 * Reply threads (docs/threads.md): each root's thread must hold exactly the source's replies to it, in
 * source order, each with the source's content. A reply whose root is not on the platform is an orphan:
 * looked for in its channel instead (verify-orphans.ts). Replies are matched by a 64-bit hash of their key
 * (expected-replies.ts). The thread's pages carry each reply whole, so its token (author, type, body
 * length) is compared for every reply, and the whole content for a reply the platform marks edited or the
 * sample picks, as channel messages are (verify-messages.ts). Those that differ are named by a second read
 * of the source.
 */
export interface ThreadsVerification {
  differences: Difference[];
  verified: number;
  /** Platform ids of the replies found in threads: not channel messages. */
  replyIds: MessageIdSet;
  /** Replies compared in full (body, properties): the sample's and those the platform marks edited. */
  contentChecked: number;
  /** Indexes (into the expected replies) of replies whose root has no thread on the platform. */
  orphans: number[];
  /** Orphans expected in their channel (not held there): ordinal → the ref of their thread's root, to name them by. */
  orphanRoots: Map<number, string>;
  /** Orphans left unexpected because their channel copy stands for them (a Slack broadcast reply): not expected twice. */
  standInCopies?: number;
  /** The roots' threads read, and the replies they hold per channel key (unexpected-replies.ts). */
  rootThreads: { threads: Set<string>; heldByChannel: Map<string, number> };
  /** Named by settleThreads, with the replies found under other messages. */
  pending: PendingThreadFindings;
}

/**
 * The source records at these ordinals (source-messages.ts readMessagesAt): read only when a reply differs.
 * `streamed`: records handed over one by one as the read passes them, not kept.
 */
export type NameReplies = (ordinals: ReadonlySet<number>, streamed?: StreamedOrdinals) => Promise<ReadonlyMap<number, SourceMessage>>;

export interface ReplyFinding {
  kind: 'missing' | 'out-of-order' | 'changed' | 'misplaced';
  reply: number;
  /** Where the reply was looked for, in words: `the reply thread of <root>`. */
  place: string;
  platformId?: string;
  /** `changed`: the fields the token shows differ. */
  fields?: string[];
  /** `misplaced`: where its equal by key is, and what to say instead when the content is not the same. */
  moved?: Stray;
}

/** A reply a thread holds that the source does not reply there: extra, unless it is one missing elsewhere (moved). */
export interface Stray {
  keyHash: string;
  message: Message;
  /** The thread holding it, in words (`the reply thread of m2`), and its channel. */
  thread: string;
  channelKey: string;
  /** The source key of the root whose thread holds it, when that is a root of the source. */
  rootKey?: string;
  /** Held among its channel's messages, not in a thread (`thread` says `channel <key>`). */
  inChannel?: true;
  extra: Difference;
}

/** Thread findings not yet named: named together once every thread holding replies was read (settleThreads). */
export interface PendingThreadFindings {
  findings: ReplyFinding[];
  checks: ContentCheck[];
  strays: Stray[];
  /**
   * Replies missing in their thread: a byte a source reply (1: missing; empty when none is), named as the
   * second read passes them (settleThreads) unless one turns out moved. Before, each was a finding object,
   * then a Difference, all held until the end: an import stopped before its replies held millions.
   */
  missing: Uint8Array;
  /** Each reply's thread root (ExpectedReplies.threadRoots): its thread, in words. */
  roots: Int32Array;
}

/** Pending findings of none yet. */
export function noPendingFindings(replies: number, roots: Int32Array = new Int32Array(0)): PendingThreadFindings {
  return { findings: [], checks: [], strays: [], missing: new Uint8Array(replies), roots };
}

/** A reply the platform holds where the source puts it, whose whole content is compared with its source record. */
export interface ContentCheck {
  reply: number;
  place: string;
  message: Message;
}

interface HeldReply {
  key: string | undefined;
  id: string;
  message: Message;
}

/** What a reply's content is compared with: the source's authors and types (interned), and the sample. */
export interface ReplyContent {
  authors: Interner;
  types: Interner;
  /** Source ordinals whose whole content is compared (`--sample`). */
  sample: ReadonlySet<number>;
}

export async function verifyThreads(
  client: ChatportClient,
  stage: StageConfig,
  replies: ExpectedReplies,
  /** Each reply's thread root (ExpectedReplies.threadRoots). */
  roots: Int32Array,
  rootOf: (parent: string, channelKey: string) => ReturnType<RootThreads['get']>,
  nameReplies: NameReplies,
  content: ReplyContent,
  signal?: AbortSignal,
): Promise<ThreadsVerification> {
  const out: ThreadsVerification = { differences: [], verified: 0, contentChecked: 0, replyIds: new MessageIdSet(), orphans: [], orphanRoots: new Map(), rootThreads: { threads: new Set(), heldByChannel: new Map() }, pending: noPendingFindings(replies.count, roots) };
  const { findings, checks, strays, missing } = out.pending;
  // Threads are read `concurrency` at a time (each read waits on the platform), and compared in order.
  // A reply on a ring of replies has no root: an orphan (expected-replies.ts threadRoots).
  for (let i = 0; i < replies.count; i++) if (roots[i]! < 0) out.orphans.push(i);
  const threads = oneGroupPerThread(replies.byParent(roots).map((g) => ({ ...g, thread: rootOf(g.parent, g.channelKey) })));
  const reads = inOrderAhead(threads, stage.options.concurrency, async ({ parent, channelKey, thread, replies: group }) => {
    return { parent, channelKey, thread, group, held: thread === undefined ? undefined : await threadReplies(client, stage, thread, signal) };
  });
  for await (const { parent, channelKey, thread, group, held } of reads) {
    if (held === undefined) {
      appendAll(out.orphans, group);
      continue;
    }
    countRootThread(out.rootThreads, String(thread), channelKey, held.length);
    for (const r of held) out.replyIds.add(r.id);
    out.verified += compareThread({ parent, channelKey, replies, group, held, content }, { findings, checks, strays, missing, differences: out.differences });
  }
  return out;
}

type RootGroup = ReturnType<ExpectedReplies['byParent']>[number] & { thread: ReturnType<RootThreads['get']> };

/**
 * Roots that name one platform thread (a message and a reply an earlier run sent into its thread,
 * earlier-threads.ts; a Discord thread's note and the thread's id) are compared as one thread, their
 * replies in source order, under the first root's name: compared apart, each would call the other's extra.
 */
function oneGroupPerThread(groups: RootGroup[]): RootGroup[] {
  const byThread = new Map<string, RootGroup>();
  const out: RootGroup[] = [];
  for (const group of groups) {
    const first = group.thread === undefined ? undefined : byThread.get(String(group.thread));
    if (first === undefined) {
      if (group.thread !== undefined) byThread.set(String(group.thread), group);
      out.push(group);
      continue;
    }
    const both = new Uint32Array(first.replies.length + group.replies.length);
    both.set(first.replies);
    both.set(group.replies, first.replies.length);
    first.replies = both.sort();
  }
  return out;
}

/**
 * Names what the threads' comparison found (one second read of the source), once the replies under
 * messages the source gives none are known too (`strays`, unexpected-replies.ts), and the channels' extras
 * and missing messages (`channel`): a reply missing in its thread that another thread, or its channel,
 * holds was moved there; a channel message missing in its channel that a thread holds was moved there.
 */
export async function settleThreads(
  threads: ThreadsVerification,
  strays: readonly Stray[],
  replies: ExpectedReplies,
  nameReplies: NameReplies,
  channel: ChannelMoves = { missing: [], keyOf: () => undefined },
  /** Where each reply missing from its thread goes as it is named (the difference sink); else `differences`. */
  emit: (difference: Difference) => void = (d) => threads.differences.push(d),
): Promise<void> {
  const { findings, checks, missing, roots } = threads.pending;
  const unclaimed = pairMoves(threads.pending, [...threads.pending.strays, ...strays], replies);
  appendAll(threads.differences, pairIntoThreads(channel, unclaimed).map((s) => s.extra));
  const described = await describeReplyFindings(findings, checks, replies, nameReplies, { missing, roots, emit });
  appendAll(threads.differences, described.differences);
  threads.verified -= described.changedOnCheck;
  threads.contentChecked += checks.length;
  threads.pending = noPendingFindings(0);
}

/** Channel messages missing in their channel (already differences), and a source record's reply key. */
export interface ChannelMoves {
  missing: ReadonlyArray<{ difference: Difference; src: SourceMessage }>;
  keyOf: (item: SourceMessage['item']) => string | undefined;
}

/**
 * A channel message missing in its channel that a thread holds by its key, with its content, was moved
 * there: its difference becomes `misplaced` (changed on the way, it stays missing there and extra here).
 * Answers the strays no missing message claims.
 */
function pairIntoThreads(channel: ChannelMoves, strays: Stray[]): Stray[] {
  const byKey = new Map<string, Stray[]>();
  for (const stray of strays) if (!stray.inChannel) byKey.set(stray.keyHash, [...(byKey.get(stray.keyHash) ?? []), stray]);
  if (byKey.size === 0) return strays;
  const claimed = new Set<Stray>();
  for (const { difference, src } of channel.missing) {
    const key = channel.keyOf(src.item);
    const list = key === undefined ? undefined : byKey.get(keyHashText(key));
    const stray = list?.find((s) => !claimed.has(s) && messageContentDifferences(src.item, s.message).length === 0);
    if (stray === undefined) continue;
    claimed.add(stray);
    const id = String(stray.message.id);
    Object.assign(difference, {
      kind: 'misplaced', platformId: id, foundIn: stray.channelKey, ...(stray.rootKey !== undefined ? { foundInThread: stray.rootKey } : {}),
      message: `message ${src.sourceKey} (${where(src.position)}) belongs in channel ${src.channelKey} but is in ${placeOf(stray, src.channelKey)} (message ${id})`,
    });
  }
  return strays.filter((s) => !claimed.has(s));
}

/** Where a stray is, in words: its thread (and the thread's channel when it is not `channelKey`), or its channel. */
function placeOf(stray: Stray, channelKey: string): string {
  return stray.inChannel || stray.channelKey === channelKey ? stray.thread : `${stray.thread} in channel ${stray.channelKey}`;
}

/** A root's thread read: its replies count once toward its channel's, however many refs name it. */
function countRootThread(read: ThreadsVerification['rootThreads'], thread: string, channelKey: string, replies: number): void {
  if (read.threads.has(thread)) return;
  read.threads.add(thread);
  read.heldByChannel.set(channelKey, (read.heldByChannel.get(channelKey) ?? 0) + replies);
}

/**
 * The thread's replies; undefined when the platform no longer has the thread (a root deleted since the run
 * folder's roots.json found it, its replies with it): its replies are then judged as a root not found is,
 * so the answer does not depend on whether the folder had that file.
 */
async function threadReplies(client: ChatportClient, stage: StageConfig, threadId: Parameters<ChatportClient['threads']['get']>[0], signal?: AbortSignal): Promise<HeldReply[] | undefined> {
  const out: HeldReply[] = [];
  try {
    for await (const m of client.threads.messages(threadId, { pageSize: 100, ...(signal ? { signal } : {}) })) out.push({ key: replyKeyOf(stage, m.properties), id: String(m.id), message: m });
  } catch (error) {
    if (!isNotFoundError(error)) throw error;
    return undefined;
  }
  return out;
}

/** One thread: its root, the source's replies to it (indexes into `replies`), what the platform holds. */
interface ThreadSides {
  parent: string;
  channelKey: string;
  replies: ExpectedReplies;
  group: Uint32Array;
  held: readonly HeldReply[];
  content: ReplyContent;
}

/** Where a thread's comparison puts what it finds. */
interface ThreadFindings {
  findings: ReplyFinding[];
  checks: ContentCheck[];
  strays: Stray[];
  missing: Uint8Array;
  differences: Difference[];
}

/**
 * Missing and extra replies, then order and content. A reply is found by its key, at the first place the
 * thread holds it; a second copy of a key is extra (a reply sent twice). The replies both sides hold must
 * come in the source's order: the longest run of them that does is in order, the others are out of order
 * (a reply posted again at the thread's end is the one named, not the ones it jumped). Each reply in order
 * is compared by token. Returns how many were verified (a reply queued for a whole-content check counts
 * until the check finds a difference); extras go straight to `differences` (no source record).
 */
function compareThread(sides: ThreadSides, out: ThreadFindings): number {
  const { parent, replies, group, held } = sides;
  const place = `the reply thread of ${parent}`;
  const firstAt = new Map<string, number>();
  held.forEach((h, i) => {
    const key = h.key === undefined ? undefined : keyHashText(h.key);
    if (key !== undefined && !firstAt.has(key)) firstAt.set(key, i);
  });
  const atOf = new Map<number, number>();
  for (const reply of group) {
    const at = firstAt.get(replies.keyHashOf(reply));
    if (at !== undefined) atOf.set(reply, at);
  }
  pairEditedReplies(sides, atOf);
  const found: Array<{ reply: number; at: number }> = [];
  for (const reply of group) {
    const at = atOf.get(reply);
    if (at === undefined) out.missing[reply] = 1;
    else found.push({ reply, at });
  }
  const inOrder = longestIncreasing(found.map((f) => f.at));
  let verified = 0;
  const matched = new Set<number>();
  found.forEach(({ reply, at }, k) => {
    matched.add(at);
    if (!inOrder.has(k)) out.findings.push({ kind: 'out-of-order', reply, place, platformId: held[at]!.id });
    else if (compareReplyContent(replies, sides.content, { reply, place, message: held[at]!.message }, out)) verified++;
  });
  held.forEach((h, i) => {
    if (matched.has(i)) return;
    const first = h.key === undefined ? undefined : firstAt.get(keyHashText(h.key));
    const copy = first !== undefined && matched.has(first);
    const why = copy ? `a second copy of the reply it holds as message ${held[first]!.id}` : 'which the source does not reply there';
    const extra: Difference = { kind: 'extra', stage: 'messages', channelKey: sides.channelKey, platformId: h.id, message: `the reply thread of ${parent} holds message ${h.id}, ${why}` };
    // A reply of another thread, by its key, may be one missing there: moved (pairMoves).
    if (copy || h.key === undefined) out.differences.push(extra);
    else out.strays.push({ keyHash: keyHashText(h.key), message: h.message, thread: `the reply thread of ${parent}`, rootKey: parent, channelKey: sides.channelKey, extra });
  });
  return verified;
}

/**
 * Mattermost replies the thread does not hold by key (their ids hash their text), each paired with a held
 * reply of its slot (author, millisecond) that no reply of the thread claims by key, in order, as the import
 * pairs them (post-keys.ts pairEditedPosts): an edited reply is the same record, compared by content.
 * Adds the pairs to `atOf` (reply → held index).
 */
function pairEditedReplies({ replies, group, held }: ThreadSides, atOf: Map<number, number>): void {
  const unpaired = Array.from(group).filter((reply) => !atOf.has(reply) && replies.slot[reply] !== 0);
  if (unpaired.length === 0) return;
  const claimed = new Set(Array.from(group, (reply) => replies.keyHashOf(reply)));
  const bySlot = new Map<number, number[]>();
  held.forEach((h, i) => {
    const slot = h.key === undefined || claimed.has(keyHashText(h.key)) ? undefined : postSlotOf(h.key);
    if (slot !== undefined) (bySlot.get(slotHash(slot)) ?? bySlot.set(slotHash(slot), []).get(slotHash(slot))!).push(i);
  });
  for (const reply of unpaired) {
    const at = bySlot.get(replies.slot[reply]!)?.shift();
    if (at !== undefined) atOf.set(reply, at);
  }
}

/**
 * A reply missing in its thread whose key another root's thread (or its channel) holds was moved there:
 * `misplaced`, as a message in another channel is (its content is compared when it is named: a changed one is
 * missing and extra after all). Answers the strays no missing reply claims.
 */
function pairMoves(pending: PendingThreadFindings, strays: readonly Stray[], replies: ExpectedReplies): Stray[] {
  const byKey = new Map<string, Stray[]>();
  for (const stray of strays) {
    const list = byKey.get(stray.keyHash);
    if (list) list.push(stray);
    else byKey.set(stray.keyHash, [stray]);
  }
  if (byKey.size === 0) return [];
  // Thread by thread, as they were compared: a moved reply changed on the way leaves an extra, in that order.
  for (const { replies: group } of replies.byParent(pending.roots))
    for (const reply of group) {
      const stray = pending.missing[reply] ? byKey.get(replies.keyHashOf(reply))?.shift() : undefined;
      if (stray === undefined) continue;
      pending.missing[reply] = 0;
      pending.findings.push({ kind: 'misplaced', reply, place: threadOf(replies, pending.roots, reply), moved: stray, platformId: String(stray.message.id) });
    }
  return [...byKey.values()].flat();
}

/** Indexes of one longest strictly increasing subsequence of `values` (patience sorting, n log n). */
export function longestIncreasing(values: readonly number[]): Set<number> {
  const tails: number[] = [];
  const previous = new Array<number>(values.length).fill(-1);
  for (let k = 0; k < values.length; k++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[tails[mid]!]! < values[k]!) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[k] = tails[lo - 1]!;
    tails[lo] = k;
  }
  const out = new Set<number>();
  for (let k = tails.length > 0 ? tails[tails.length - 1]! : -1; k !== -1; k = previous[k]!) out.add(k);
  return out;
}

/**
 * A reply the platform holds where the source puts it: its token (type, author, body length) against the
 * source's; one the platform marks edited, or the sample picks, is queued to be compared whole. True unless
 * the token differs.
 */
export function compareReplyContent(replies: ExpectedReplies, content: ReplyContent, held: ContentCheck, out: Pick<ThreadFindings, 'findings' | 'checks'>): boolean {
  const { reply, message } = held;
  const fields: string[] = [];
  if (content.types.name(replies.type[reply]!) !== message.type) fields.push('type');
  if (content.authors.name(replies.author[reply]!) !== (message.user?.name ?? '')) fields.push('user');
  if (replies.length[reply] !== (message.body ?? '').length) fields.push('body');
  if (fields.length > 0) {
    out.findings.push({ kind: 'changed', reply, place: held.place, platformId: String(message.id), fields });
    return false;
  }
  if (message.lastEditedTime !== undefined || content.sample.has(replies.ordinal[reply]!)) out.checks.push(held);
  return true;
}

/**
 * The findings named by their source records, and the queued replies compared in full (one second read of
 * the source for both). `changedOnCheck`: queued replies that differ, counted verified until now.
 */
export async function describeReplyFindings(
  findings: readonly ReplyFinding[],
  checks: readonly ContentCheck[],
  replies: ExpectedReplies,
  nameReplies: NameReplies,
  passing: { missing: Uint8Array; roots: Int32Array; emit: (difference: Difference) => void },
): Promise<{ differences: Difference[]; changedOnCheck: number }> {
  const missing = new Uint32List();
  passing.missing.forEach((flag, reply) => flag && missing.push(reply));
  const passed = missing.done();
  if (findings.length === 0 && checks.length === 0 && passed.length === 0) return { differences: [], changedOnCheck: 0 };
  // Reply indexes follow the source's order: their ordinals ascend as the read wants them.
  const named = new Uint8Array(passed.length);
  const nameMissing = (at: number, src: SourceMessage | undefined) => passing.emit(describe({ kind: 'missing', reply: passed[at]!, place: threadOf(replies, passing.roots, passed[at]!) }, src, replies));
  const streamed: StreamedOrdinals = {
    ordinals: passed.map((reply) => replies.ordinal[reply]!),
    visit: (at, src) => {
      named[at] = 1;
      nameMissing(at, src);
      return false;
    },
  };
  const source = await nameReplies(new Set([...findings, ...checks].map((f) => replies.ordinal[f.reply]!)), streamed);
  // A record the second read did not find (the source changed since) is named without it, as before.
  named.forEach((done, at) => done || nameMissing(at, undefined));
  const differences = findings.flatMap((f) => {
    const src = source.get(replies.ordinal[f.reply]!);
    // A move keeps the content; one changed on the way is missing here and extra there.
    if (f.moved && (!src || messageContentDifferences(src.item, f.moved.message).length > 0)) return [describe({ ...f, kind: 'missing' }, src, replies), f.moved.extra];
    return [describe(f, src, replies)];
  });
  let changedOnCheck = 0;
  for (const check of checks) {
    const src = source.get(replies.ordinal[check.reply]!);
    const fields = src ? messageContentDifferences(src.item, check.message) : [];
    if (fields.length === 0) continue;
    changedOnCheck++;
    differences.push(describe({ kind: 'changed', reply: check.reply, place: check.place, platformId: String(check.message.id), fields }, src, replies));
  }
  return { differences, changedOnCheck };
}

/** The thread a reply belongs in, in words. */
function threadOf(replies: ExpectedReplies, roots: Int32Array, reply: number): string {
  return `the reply thread of ${replies.parents.name(roots[reply]!)}`;
}

function describe(f: ReplyFinding, src: SourceMessage | undefined, replies: ExpectedReplies): Difference {
  const base = { stage: 'messages' as const, ...(src ? { sourceKey: src.sourceKey, position: src.position } : {}), channelKey: replies.channelKeyOf(f.reply) };
  const name = src ? `reply ${src.sourceKey} (${where(src.position)})` : 'a reply';
  switch (f.kind) {
    case 'missing':
      return { kind: 'missing', ...base, message: `${name} is not in ${f.place}` };
    case 'out-of-order':
      return { kind: 'out-of-order', ...base, platformId: f.platformId!, message: `${name} is in ${f.place}, but not where the source puts it` };
    case 'changed':
      return { kind: 'changed', ...base, platformId: f.platformId!, fields: f.fields!, message: `${name} differs in ${f.place} (message ${f.platformId}) in ${f.fields!.join(', ')}` };
    case 'misplaced': {
      const { rootKey, channelKey } = f.moved!;
      return { kind: 'misplaced', ...base, platformId: f.platformId!, foundIn: channelKey, ...(rootKey !== undefined ? { foundInThread: rootKey } : {}), message: `${name} belongs in ${f.place} but is in ${placeOf(f.moved!, base.channelKey)} (message ${f.platformId})` };
    }
  }
}
