import { isNotFoundError } from '../../../api/index.js';
import type { Int64 } from '../../../shared/int64.js';
import type { Message } from '../../../wire/resources.js';
import { deliverReply, heldCopyOf, heldSourceOf, replyUpdates, settle, type DeliverDeps, type Delivery, type PresentReplies } from './deliver.js';
import { replyKeyOf } from './refs.js';
import type { SpooledReply } from './spool.js';
import type { HeldCopy } from '../held-messages.js';

/**
 * A reply whose root is on the platform may also sit in its channel: an earlier run sent it there as an
 * orphan (its root was rejected, or not yet in the export) or imported it there (Slack `rootMissing`). It
 * is moved (docs/threads.md "Moved orphans"): sent into its thread exactly once (deliver.ts), then its
 * channel copy deleted and the move journaled. A run killed between the two steps finds the reply in its
 * thread and the copy still in the channel, and deletes it then. A copy whose content differs from its
 * source (the reply edited in the source since) is a held message with other content: with `mode: upsert`
 * it is patched first (journaled as a reply's patch, deliver.ts), then moved, the move counted as that
 * update; otherwise it stays where it is, changed, not applied (moving it would send the source's content).
 */

/** What a target holds, by reply key (read once per target by the caller). */
export type Present = () => Promise<PresentReplies>;

export interface ThreadDelivery {
  delivery: Delivery;
  /** Held in its channel after all (its copy there has replies of its own, which a delete would take along). */
  orphan: boolean;
}

export async function deliverIntoThread(deps: DeliverDeps, reply: SpooledReply, threadId: Int64, inThread: Present, inChannel: Present): Promise<ThreadDelivery> {
  const copy = await channelCopyOf(deps, reply, inChannel);
  // A copy with replies of its own (an earlier version put replies to replies there, or someone replied by
  // hand) stays: a delete would take them along. This run sends nothing into a reply's thread (chains.ts).
  if (copy !== undefined && (copy.repliesCount ?? 0) > 0) {
    const delivery = await deliverReply(deps, reply, { kind: 'channel', channelId: reply.channelId }, () => Promise.resolve(new Map([[reply.key, comparedCopyOf(reply, copy)]])));
    return { delivery, orphan: deps.state.sent.get(reply.key)?.orphan === true };
  }
  // A copy whose reply its thread holds already (a run killed after the send, or a version that sent an
  // edited reply there and kept its copy) is only a leftover: the thread's is compared, the copy deleted.
  const settled = copy === undefined || (await inThread()).has(reply.key) ? undefined : await settleCopy(deps, reply, copy);
  if (settled !== undefined && settled.kind !== 'updated') return { delivery: settled, orphan: settled.kind === 'changed' };
  const delivery = await deliverReply(deps, reply, { kind: 'thread', threadId }, inThread, settled !== undefined);
  if (delivery.kind === 'sent' && copy !== undefined && copy.id !== delivery.id) await deleteCopy(deps, reply.key, copy.id);
  else if (delivery.kind === 'sent' && copy === undefined) await endInterruptedMove(deps, reply.key);
  return { delivery, orphan: false };
}

/**
 * The copy compared with its source, as a reply found in place is (deliver.ts), unless the journal has the
 * reply settled already: undefined when it holds the source's content, `updated` once patched to it, else
 * `changed` (left, listed) or `refused` (the patch refused). Its properties are not compared: a copy's
 * placement facts (Slack's `rootMissing`) differ from its reply's by nature, and the reply sent into its
 * thread carries the source's.
 */
async function settleCopy(deps: DeliverDeps, reply: SpooledReply, copy: Message): Promise<Delivery | { kind: 'updated' } | undefined> {
  if (deps.held === undefined || deps.state.sent.get(reply.key) !== undefined || deps.state.refused.has(reply.key)) return undefined;
  const outcome = await deps.held.settleReply(heldSourceOf(reply), comparedCopyOf(reply, copy), replyUpdates(deps, reply.key));
  switch (outcome.kind) {
    case 'changed':
      return { kind: 'changed', id: copy.id };
    case 'conflict':
      return settle(deps, reply.key, { kind: 'channel', channelId: reply.channelId }, { kind: 'refused', message: outcome.reasons.map((r) => r.message).join('; ') });
    case 'updated':
      return outcome;
    default:
      return undefined;
  }
}

/**
 * A channel copy as it is compared with its reply: its properties are not (a copy's placement facts, such as
 * Slack's `rootMissing`, differ from its reply's by nature, whether it is moved or stays for its replies).
 */
function comparedCopyOf(reply: SpooledReply, copy: Message): HeldCopy {
  const held = heldCopyOf(copy);
  return { id: held.id, fields: { ...held.fields, properties: reply.item.properties } };
}

/**
 * The reply's copy in its channel, read again just before acting on it: it must still be there, carry this
 * very reply key, be a channel message, and be by the reply's author, of its type. Keys are the source's,
 * not the pipeline's, but only this pipeline's channels are searched (a DIRECT channel made outside
 * chatport never is): such a message is this pipeline's record, compared with its source like any held
 * message. Without that comparison (no held records) only one saying what the reply says is taken.
 */
async function channelCopyOf(deps: DeliverDeps, reply: SpooledReply, inChannel: Present): Promise<Message | undefined> {
  const key = reply.key;
  const id = (await inChannel()).get(key)?.id;
  if (id === undefined) return undefined;
  let message: Message;
  try {
    message = await deps.client.messages.get(id, { signal: deps.signal });
  } catch (error) {
    if (isNotFoundError(error)) return undefined;
    throw error;
  }
  const author = reply.body.user && 'username' in reply.body.user ? reply.body.user.username : undefined;
  const same = message.user?.name === author && message.type === reply.body.type && (deps.held !== undefined || message.body === reply.body.body);
  return replyKeyOf(deps.stage, message.properties) === key && (message.nestedLevel ?? 0) === 0 && same ? message : undefined;
}

/** The delete journaled first (`reply-moving`), so a run killed before `reply-moved` still counts the move. */
async function deleteCopy(deps: DeliverDeps, key: string, id: Int64): Promise<void> {
  await deps.journal.append({ t: 'reply-moving', stage: 'messages', key, from: id });
  deps.state.moving.set(key, id);
  try {
    await deps.client.messages.delete(id, { signal: deps.signal });
  } catch (error) {
    // Gone already: a repeated delete whose first answer was lost.
    if (!isNotFoundError(error)) throw error;
  }
  await journalMoved(deps, key, id);
}

/**
 * A copy an earlier attempt was deleting (`reply-moving`, no `reply-moved`) and that is gone now: that
 * delete reached the platform before the kill, so the move is this run's, counted once.
 */
async function endInterruptedMove(deps: DeliverDeps, key: string): Promise<void> {
  const from = deps.state.moving.get(key);
  if (from !== undefined && !deps.state.moved.has(key)) await journalMoved(deps, key, from);
}

async function journalMoved(deps: DeliverDeps, key: string, from: Int64): Promise<void> {
  await deps.journal.append({ t: 'reply-moved', stage: 'messages', key, from });
  deps.state.moving.delete(key);
  deps.state.moved.add(key);
}
