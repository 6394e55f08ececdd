/**
 * The sandbox's notifications (decisions.md "Sessions, notifications, read receipts"), kept compact and
 * bounded: a feed per recipient holding its newest `keptPerUser` notifications in typed arrays, each entry
 * pointing at the one note its send shares with every other recipient (title, body, channel, time).
 *
 * Why not one record per notification in a Map: a Slack migration sends each reply through the API, and a
 * reply into a channel of 200 members is 199 notifications. A million-message migration passed V8's limit
 * for a Map (about 16.7 million entries) and the sandbox failed every later send (docs/sandbox.md).
 */
import type { NotificationRec } from './store.js';

/** The `data.type` values (decisions.md), in the order their codes are journaled: never reorder. */
export const NOTIFICATION_KINDS = ['SYSTEM:SENT:MESSAGE', 'USER:SENT:MESSAGE', 'USER:REPLIED_TO:MESSAGE', 'USER:MENTIONED:USER', 'USER:MENTIONED:CHANNEL'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** How many notifications a user's feed keeps; older ones are no longer listed (docs/sandbox.md). */
export const NOTIFICATIONS_KEPT_PER_USER = 1000;

/** What one send told all its recipients. */
export interface SendNote {
  messageId: number;
  channelId: number;
  title: string;
  body: string;
  createdTime: number;
}

/**
 * One send's notifications as journaled, in id order: the i-th went to user `u[i]`. The ids of a send are
 * consecutive (`first`, `first + 1`, …) unless listed (`ids`, in a snapshot after older ones fell out),
 * and the kind codes are one for all (a number) or one each. The short forms keep a reply into a channel
 * of 200 members to about 1 KB of journal instead of about 2.6.
 */
export interface NotifiedOp {
  t: 'notified';
  m: number;
  c: number;
  title: string;
  body: string;
  at: number;
  u: number[];
  first?: number;
  ids?: number[];
  k: number | number[];
}

export function notifiedId(op: NotifiedOp, i: number): number {
  return op.ids ? op.ids[i]! : op.first! + i;
}

export function notifiedKind(op: NotifiedOp, i: number): number {
  return typeof op.k === 'number' ? op.k : op.k[i]!;
}

/** A send's notifications in their shortest journaled form (see NotifiedOp). */
export function notifiedOp(note: Omit<NotifiedOp, 't' | 'u' | 'first' | 'ids' | 'k'>, ids: number[], users: number[], kinds: number[]): NotifiedOp {
  const consecutive = ids.every((id, i) => id === ids[0]! + i);
  const oneKind = kinds.every((k) => k === kinds[0]);
  return { t: 'notified', ...note, u: users, ...(consecutive ? { first: ids[0]! } : { ids }), k: oneKind ? kinds[0]! : kinds };
}

export function kindCode(kind: string): number {
  const code = NOTIFICATION_KINDS.indexOf(kind as NotificationKind);
  if (code < 0) throw new Error(`unknown notification kind '${kind}'`);
  return code;
}

/** A user's newest notifications, oldest first, in a ring that grows by doubling up to its bound. */
class Feed {
  ids: Float64Array;
  kinds: Uint8Array;
  notes: Array<SendNote | undefined>;
  start = 0;
  size = 0;

  constructor(private readonly bound: number) {
    const capacity = Math.min(4, bound);
    this.ids = new Float64Array(capacity);
    this.kinds = new Uint8Array(capacity);
    this.notes = new Array<SendNote | undefined>(capacity);
  }

  push(id: number, kind: number, note: SendNote): void {
    // Ids arrive ascending: one not above the newest is an op applied again (a restart between the
    // snapshot's rename and the journal's truncation replays the journal over a snapshot that holds it).
    if (this.size > 0 && id <= this.idAt(this.size - 1)) return;
    if (this.size === this.ids.length && this.size < this.bound) this.grow();
    const capacity = this.ids.length;
    if (this.size < capacity) {
      this.put((this.start + this.size) % capacity, id, kind, note);
      this.size++;
      return;
    }
    // Full at the bound: the newest replaces the oldest.
    this.put(this.start, id, kind, note);
    this.start = (this.start + 1) % capacity;
  }

  /** Position `i` from the oldest. */
  slot(i: number): number {
    return (this.start + i) % this.ids.length;
  }

  idAt(i: number): number {
    return this.ids[this.slot(i)]!;
  }

  /** Index from the oldest of notification `id`, or -1 (ids ascend from the oldest). */
  indexOf(id: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.idAt(mid) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.size && this.idAt(lo) === id ? lo : -1;
  }

  private put(slot: number, id: number, kind: number, note: SendNote): void {
    this.ids[slot] = id;
    this.kinds[slot] = kind;
    this.notes[slot] = note;
  }

  private grow(): void {
    const capacity = Math.min(this.bound, this.ids.length * 2);
    const ids = new Float64Array(capacity);
    const kinds = new Uint8Array(capacity);
    const notes = new Array<SendNote | undefined>(capacity);
    for (let i = 0; i < this.size; i++) {
      const from = this.slot(i);
      ids[i] = this.ids[from]!;
      kinds[i] = this.kinds[from]!;
      notes[i] = this.notes[from];
    }
    this.ids = ids;
    this.kinds = kinds;
    this.notes = notes;
    this.start = 0;
  }
}

export class NotificationLog {
  private readonly feeds = new Map<number, Feed>();

  constructor(private readonly keptPerUser = NOTIFICATIONS_KEPT_PER_USER) {}

  /** Applies one send's notifications. Ids must arrive ascending per user (they are issued in order). */
  apply(op: NotifiedOp): void {
    const note: SendNote = { messageId: op.m, channelId: op.c, title: op.title, body: op.body, createdTime: op.at };
    for (let i = 0; i < op.u.length; i++) this.feed(op.u[i]!).push(notifiedId(op, i), notifiedKind(op, i), note);
  }

  /**
   * Ids of a user's kept notifications, newest first; with `listed`, only those whose message it holds
   * (a deleted message's notifications are not listed: §6.4's `data` carries the message).
   */
  idsNewestFirst(userId: number, listed?: (messageId: number) => boolean): number[] {
    const feed = this.feeds.get(userId);
    if (!feed) return [];
    const ids: number[] = [];
    for (let i = feed.size - 1; i >= 0; i--) if (!listed || listed(feed.notes[feed.slot(i)]!.messageId)) ids.push(feed.idAt(i));
    return ids;
  }

  /** A kept notification of `userId`, or undefined. */
  get(userId: number, id: number): NotificationRec | undefined {
    const feed = this.feeds.get(userId);
    const i = feed ? feed.indexOf(id) : -1;
    return i < 0 ? undefined : record(feed!, i, userId);
  }

  forgetUser(userId: number): void {
    this.feeds.delete(userId);
  }

  /**
   * The kept notifications as ops, one per send, in id order (a snapshot replays them in this order); with
   * `listed`, only the sends whose message it holds (see idsNewestFirst).
   */
  *dump(listed?: (messageId: number) => boolean): Generator<NotifiedOp> {
    const bySend = new Map<SendNote, Kept>();
    for (const [userId, feed] of this.feeds) {
      for (let i = 0; i < feed.size; i++) {
        const slot = feed.slot(i);
        const note = feed.notes[slot]!;
        if (listed && !listed(note.messageId)) continue;
        let kept = bySend.get(note);
        if (!kept) bySend.set(note, (kept = { ids: [], users: [], kinds: [] }));
        kept.ids.push(feed.ids[slot]!);
        kept.users.push(userId);
        kept.kinds.push(feed.kinds[slot]!);
      }
    }
    const sends = [...bySend].map(([note, kept]) => ({ note, kept: inIdOrder(kept) }));
    sends.sort((a, b) => a.kept.ids[0]! - b.kept.ids[0]!);
    for (const { note, kept } of sends)
      yield notifiedOp({ m: note.messageId, c: note.channelId, title: note.title, body: note.body, at: note.createdTime }, kept.ids, kept.users, kept.kinds);
  }

  private feed(userId: number): Feed {
    let feed = this.feeds.get(userId);
    if (!feed) this.feeds.set(userId, (feed = new Feed(this.keptPerUser)));
    return feed;
  }
}

function record(feed: Feed, i: number, userId: number): NotificationRec {
  const slot = feed.slot(i);
  const note = feed.notes[slot]!;
  return {
    id: feed.ids[slot]!,
    userId,
    messageId: note.messageId,
    channelId: note.channelId,
    type: NOTIFICATION_KINDS[feed.kinds[slot]!]!,
    title: note.title,
    body: note.body,
    createdTime: note.createdTime,
  };
}

/** What the feeds still hold of one send. */
interface Kept {
  ids: number[];
  users: number[];
  kinds: number[];
}

/** A snapshot collects a send's notifications user by user: put them back in id order. */
function inIdOrder(kept: Kept): Kept {
  const order = kept.ids.map((_, i) => i).sort((a, b) => kept.ids[a]! - kept.ids[b]!);
  return { ids: order.map((i) => kept.ids[i]!), users: order.map((i) => kept.users[i]!), kinds: order.map((i) => kept.kinds[i]!) };
}
