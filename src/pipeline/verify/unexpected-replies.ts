import type { ChatportClient, Message } from '../../api/index.js';
import { isNotFoundError } from '../../api/index.js';
import type { StageConfig } from '../../config/index.js';
import { int64 } from '../../shared/int64.js';
import { inOrderAhead } from '../../shared/in-order-ahead.js';
import { grownTo } from '../../shared/typed-arrays.js';
import { replyKeyOf, replyThreadIdOf } from '../import/replies/index.js';
import { keyHashText } from './expected-replies.js';
import type { Stray } from './verify-threads.js';
import type { Difference } from './types.js';

/**
 * Replies the platform holds under a message the source gives none (docs/verify.md "Reply threads"): a
 * reply another client posted under a plain message or an orphan, or one an older chatport left in the
 * thread of a reply's channel copy. The export gives every message's `repliesCount`, so a channel whose
 * counts add up to the replies found in its roots' threads holds nothing more, at no request; only in a
 * channel whose sum is larger are the messages holding replies looked at, one by one.
 */
export class RepliesOnPlatform {
  /** Channel key → messages holding replies (ids and counts as columns) and the sum of their counts. */
  private readonly byChannel = new Map<string, { ids: BigInt64Array; counts: Uint32Array; size: number; total: number }>();

  /** A message of the export with `count` replies (0 is not kept). */
  add(channelKey: string, id: bigint, count: number): void {
    if (!(count > 0)) return;
    let c = this.byChannel.get(channelKey);
    if (!c) this.byChannel.set(channelKey, (c = { ids: new BigInt64Array(4), counts: new Uint32Array(4), size: 0, total: 0 }));
    if (c.size === c.ids.length) {
      c.ids = grownTo(c.ids, c.size * 2);
      c.counts = grownTo(c.counts, c.size * 2);
    }
    c.ids[c.size] = id;
    c.counts[c.size++] = count;
    c.total += count;
  }

  /** Channels holding more replies than `found` (channel key → replies in the roots' threads read), with the excess. */
  *exceeding(found: ReadonlyMap<string, number>): Generator<{ channelKey: string; excess: number; holders: Array<{ id: bigint; count: number }> }> {
    for (const [channelKey, c] of this.byChannel) {
      const excess = c.total - (found.get(channelKey) ?? 0);
      if (excess <= 0) continue;
      yield { channelKey, excess, holders: Array.from(c.ids.subarray(0, c.size), (id, i) => ({ id, count: c.counts[i]! })) };
    }
  }
}

/** What verification read of the roots' threads: their ids, and the replies they hold per channel key. */
export interface RootThreadsRead {
  threads: ReadonlySet<string>;
  heldByChannel: ReadonlyMap<string, number>;
}

/**
 * The replies held beyond the roots' threads, each named `extra` with the message it hangs from. In a
 * channel whose counts exceed, each message holding replies is read (`GET /messages/{id}`) for its thread:
 * a root's thread was compared already; any other thread is read and all of it is extra. Stops once the
 * excess is accounted for, so the roots after the last such message cost nothing. `replyIds`: those
 * replies, which the export lists among their channel's rows, for the caller to leave out of the channel.
 */
export async function unexpectedReplies(
  client: ChatportClient, stage: StageConfig, held: RepliesOnPlatform, roots: RootThreadsRead, signal?: AbortSignal,
): Promise<{ differences: Difference[]; strays: Stray[]; replyIds: Set<bigint> }> {
  const differences: Difference[] = [];
  // Those carrying a key: a reply the source gives elsewhere may have been moved here (settleThreads).
  const strays: Stray[] = [];
  const replyIds = new Set<bigint>();
  for (const { channelKey, excess, holders } of held.exceeding(roots.heldByChannel)) {
    let left = excess;
    const reads = inOrderAhead(holders, stage.options.concurrency, (holder) => repliesBeyondRoots(client, roots.threads, holder.id, signal));
    for await (const replies of reads) {
      if (replies === undefined) continue;
      left -= replies.messages.length;
      for (const reply of replies.messages) {
        replyIds.add(BigInt(reply.id));
        const extra = extraReply(channelKey, replies.rootId, reply);
        const key = replyKeyOf(stage, reply.properties);
        if (key === undefined) differences.push(extra);
        else strays.push({ keyHash: keyHashText(key), message: reply, thread: `the reply thread of message ${replies.rootId}`, channelKey, extra });
      }
      if (left <= 0) break;
    }
  }
  return { differences, strays, replyIds };
}

/** The replies under message `id` when its thread is not a root's already compared; undefined otherwise. */
async function repliesBeyondRoots(client: ChatportClient, rootThreads: ReadonlySet<string>, id: bigint, signal: AbortSignal | undefined): Promise<{ rootId: string; messages: Message[] } | undefined> {
  const options = signal ? { signal } : {};
  try {
    const thread = replyThreadIdOf(await client.messages.get(int64(id), options));
    if (thread === undefined || rootThreads.has(String(thread))) return undefined;
    const messages: Message[] = [];
    for await (const m of client.threads.messages(thread, { pageSize: 100, ...options })) messages.push(m);
    return { rootId: String(id), messages };
  } catch (error) {
    // Deleted since the export: nothing of it is held any more.
    if (isNotFoundError(error)) return undefined;
    throw error;
  }
}

function extraReply(channelKey: string, rootId: string, reply: Message): Difference {
  const id = String(reply.id);
  return { kind: 'extra', stage: 'messages', channelKey, platformId: id, message: `the reply thread of message ${rootId} in channel ${channelKey} holds message ${id}, which the source does not reply there` };
}
