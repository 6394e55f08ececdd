import type { ChatportClient } from '../../../api/index.js';
import type { StageConfig } from '../../../config/index.js';
import type { JournalEvent } from '../../state/events.js';
import type { Journal } from '../../state/journal.js';
import type { RepliesState } from '../../state/run-state.js';
import { deliverReply, keysAt, type Delivery, type DeliverDeps, type PresentReplies, type ReplyTarget } from './deliver.js';
import { deliverIntoThread } from './move.js';
import type { ReplyChains } from './chains.js';
import { hasChannelCopy } from './refs.js';
import { rootKey, type RootThreads } from './roots.js';
import { readSpool, type SpooledReply } from './spool.js';

/**
 * The replies pass: streams the spool and sends each reply into its root's thread. Replies of one thread
 * go one after the other, in source order (each waits for the one before it); different threads go in
 * parallel, at most `concurrency` sends at once, paced by the client like every other request.
 */

/**
 * `moved`: its channel copy from an earlier run was deleted once it was in its thread (move.ts).
 * `broadcastCopyStands`: not sent, as its root is not on the platform and its broadcast copy stands in the
 * channel for it (refs.ts hasChannelCopy; not journaled: nothing was sent, and a resumed run decides the same).
 */
export type ReplyOutcome = { reply: SpooledReply; delivery: Delivery; orphan: boolean; moved: boolean } | { reply: SpooledReply; broadcastCopyStands: true };

export interface SendRepliesInput {
  client: ChatportClient;
  stage: StageConfig;
  spoolPath: string;
  roots: RootThreads;
  /** Replies to replies (chains.ts): the root of each reply's thread, and the replies between. */
  chains: ReplyChains;
  /** Threads known to hold nothing yet (FoundRoots.empty): their first send skips the look. */
  emptyThreads: ReadonlySet<string>;
  /** The spooled replies' keys: a channel read keeps only these. */
  replyKeys: { has(key: string): boolean };
  /** Whether a channel (decimal id) may hold an earlier run's copy of a reply (a channel this run created holds none). */
  mayHoldCopies(channelId: string): boolean;
  state: RepliesState;
  journal: Journal<JournalEvent>;
  concurrency: number;
  signal: AbortSignal;
  held?: DeliverDeps['held'];
  onOutcome(outcome: ReplyOutcome): Promise<void>;
}

export async function sendReplies(input: SendRepliesInput): Promise<void> {
  const slots = new Slots(input.concurrency);
  const tails = new Map<string, Promise<void>>();
  // What each target already holds, read once while its replies are being sent (then dropped).
  const presentAt = new Map<string, Promise<PresentReplies>>();
  const presentOf = (target: ReplyTarget) => {
    if (target.kind === 'thread' && input.emptyThreads.has(String(target.threadId))) return nothingPresent;
    const id = target.kind === 'thread' ? `t${String(target.threadId)}` : `c${String(target.channelId)}`;
    // Read only when a reply asks (replies the journal has as sent never do, so a resumed run's fully sent
    // threads cost no GET), and only by the caller that awaits it: a read nobody awaits would fail unhandled.
    return () => {
      let present = presentAt.get(id);
      if (!present) presentAt.set(id, (present = keysAt(input, target, (key) => input.replyKeys.has(key))));
      return present;
    };
  };
  let failure: { error: unknown } | undefined;
  const rootOf = (reply: SpooledReply) => input.chains.rootOf(String(reply.channelId), reply.parent);
  const threadOf = (reply: SpooledReply) => {
    const root = rootOf(reply);
    return root === undefined ? undefined : input.roots.get(rootKey(String(reply.channelId), root));
  };
  // A reply whose parent reply was refused, or went into the channel for that reason, has lost its way to
  // the root: an orphan, as verification (which leaves refused records out) expects. A chain's replies go
  // one after the other, so the parent's outcome is known (when the source lists it first).
  const cutOff = (reply: SpooledReply) => {
    if (!input.chains.isReply(String(reply.channelId), reply.parent)) return false;
    return input.state.refused.has(reply.parent) || input.state.sent.get(reply.parent)?.orphan === true;
  };
  const deliverOne = async (reply: SpooledReply) => {
    if (failure || input.signal.aborted) return;
    const thread = cutOff(reply) ? undefined : threadOf(reply);
    const channel: ReplyTarget = { kind: 'channel', channelId: reply.channelId };
    if (thread === undefined) {
      // Its channel copy is where Slack showed it (an earlier version's orphan, journaled, is counted as sent).
      if (hasChannelCopy(input.stage, reply.item.properties) && input.state.sent.get(reply.key) === undefined) {
        await input.onOutcome({ reply, broadcastCopyStands: true });
        return;
      }
      const delivery = await deliverReply(input, reply, channel, presentOf(channel));
      await input.onOutcome({ reply, delivery, orphan: true, moved: false });
      return;
    }
    // The channel is read too: an earlier run may have left this reply there (move.ts).
    const copies = input.mayHoldCopies(String(reply.channelId)) ? presentOf(channel) : nothingPresent;
    const { delivery, orphan } = await deliverIntoThread(input, reply, thread, presentOf({ kind: 'thread', threadId: thread }), copies);
    await input.onOutcome({ reply, delivery, orphan, moved: input.state.moved.has(reply.key) });
  };
  for await (const reply of readSpool(input.spoolPath)) {
    if (failure || input.signal.aborted) break;
    await slots.take();
    // Replies of one thread (or of one chain whose root is missing) go one after the other; a thread two
    // roots name (a reply an earlier run sent into it, and its root: earlier-threads.ts) is one thread.
    const thread = threadOf(reply);
    const tail = thread !== undefined ? `t${String(thread)}` : rootKey(String(reply.channelId), rootOf(reply) ?? reply.parent);
    const before = tails.get(tail) ?? Promise.resolve();
    const mine: Promise<void> = before
      .then(() => deliverOne(reply))
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => {
        slots.give();
        if (tails.get(tail) === mine) {
          tails.delete(tail);
          if (thread !== undefined) presentAt.delete(`t${String(thread)}`);
        }
      });
    tails.set(tail, mine);
  }
  await Promise.all(tails.values());
  if (failure) throw failure.error;
  if (input.signal.aborted) throw input.signal.reason;
}

const NOTHING: PresentReplies = new Map();
const nothingPresent = () => Promise.resolve(NOTHING);

/** A counting semaphore: `take` waits for a free slot, in the order asked. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(size: number) {
    this.free = Math.max(1, size);
  }

  take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
