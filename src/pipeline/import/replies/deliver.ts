import { isClientRequestError, type ChatportClient, type SendMessageBody } from '../../../api/index.js';
import type { StageConfig } from '../../../config/index.js';
import type { Int64 } from '../../../shared/int64.js';
import type { Message } from '../../../wire/resources.js';
import type { JournalEvent, ReplyDifference } from '../../state/events.js';
import type { Journal } from '../../state/journal.js';
import type { RepliesState } from '../../state/run-state.js';
import { mayBeReply, replyKeyOf, repliesMayNest } from './refs.js';
import { detachString } from '../../../shared/detach-string.js';
import { comparedFieldsOf } from '../../../transform/index.js';
import type { HeldCopy } from '../held-messages.js';
import type { HeldOutcome, HeldRecords, HeldSource, ReplyUpdates } from '../held-records.js';
import type { SpooledReply } from './spool.js';
import { earlierReplyVersion } from './earlier-reply.js';

/**
 * One reply, exactly once. The send has no idempotency key, so: a reply the journal says was sent is
 * never sent again; a reply the journal says was being sent (the process died, or the answer was lost) is
 * looked for where it would be, by its key in `properties`, before it is sent again; every send is
 * journaled before it leaves.
 */

/** Where a reply goes: its root's reply thread, or (an orphan) its channel. */
export type ReplyTarget = { kind: 'thread'; threadId: Int64 } | { kind: 'channel'; channelId: Int64 };

/**
 * `held`: the target held the reply before this run sent it (a run after a finished one): found, not sent;
 * `updated`: held with other content and patched (`mode: upsert`). `changed`: held with other content, left
 * as it is (not journaled: a resumed run compares it again, as it does the held messages).
 */
export type Delivery = { kind: 'sent'; id: Int64; held?: true; updated?: true } | { kind: 'refused'; message: string } | { kind: 'changed'; id: Int64 };

/** What a target holds, by reply key: each reply's id and compared fields. */
export type PresentReplies = ReadonlyMap<string, HeldCopy>;

export interface DeliverDeps {
  client: ChatportClient;
  stage: StageConfig;
  state: RepliesState;
  journal: Journal<JournalEvent>;
  signal: AbortSignal;
  /** Compares a reply found already there with its source (held-records.ts); absent: found is held, as is. */
  held?: Pick<HeldRecords, 'settleReply' | 'listReplyUpdate'>;
}

/** Sends whose outcome stays unknown after this many tries stop the run (the journal keeps the reply "sending"). */
const MAX_UNKNOWN_OUTCOMES = 3;

/**
 * `present`: what the target already holds, by reply key (read once per thread by the caller): a run after
 * a finished one (a new journal) finds its replies there and does not send them again. `updated`: the
 * caller brought the reply's channel copy to the source's content (move.ts): its delivery is that update.
 */
export async function deliverReply(deps: DeliverDeps, reply: SpooledReply, target: ReplyTarget, present: () => Promise<PresentReplies>, updated = false): Promise<Delivery> {
  const { key, body } = reply;
  const known = deps.state.sent.get(key);
  if (known) return knownDelivery(deps, reply, known);
  const refused = deps.state.refused.get(key);
  if (refused !== undefined) return { kind: 'refused', message: refused };
  const held = await present();
  // A Mattermost reply edited since: held under its earlier text's id (earlier-reply.ts).
  const there = held.get(key) ?? (deps.held ? earlierReplyVersion(deps.stage, held, reply) : undefined);
  if (there !== undefined) return settleFound(deps, reply, target, there, updated);
  for (let attempt = 1; ; attempt++) {
    if (deps.state.sending.has(key)) {
      const found = await lookUp(deps, key, target);
      if (found !== undefined) return settle(deps, key, target, { kind: 'sent', id: found, ...(updated ? { updated: true as const } : {}) });
    }
    await deps.journal.append({ t: 'reply-sending', stage: 'messages', key });
    deps.state.sending.add(key);
    try {
      const message = await send(deps, body, target);
      return await settle(deps, key, target, { kind: 'sent', id: message.id, ...(updated ? { updated: true as const } : {}) });
    } catch (error) {
      if (isClientRequestError(error)) return settle(deps, key, target, { kind: 'refused', message: `refused by the platform: ${error.message}` });
      // Anything else leaves the outcome unknown: look before sending again.
      if (attempt >= MAX_UNKNOWN_OUTCOMES || deps.signal.aborted) throw error;
    }
  }
}

/**
 * A reply the journal has as settled. The changed list is written anew by every read of the input, so an
 * update an earlier attempt journaled is listed again, as the uninterrupted run listed it.
 */
async function knownDelivery(deps: DeliverDeps, reply: SpooledReply, known: { id: Int64; held?: true; updated?: true }): Promise<Delivery> {
  const update = known.updated && deps.held ? await journaledUpdate(deps, reply.key) : undefined;
  if (update) await deps.held?.listReplyUpdate(heldSourceOf(reply), update.id, update.differences);
  return { kind: 'sent', id: known.id, ...(known.held ? { held: true } : {}), ...(known.updated ? { updated: true } : {}) };
}

/**
 * A reply the target already holds: compared with its source like any held message (docs/identity.md
 * "Updates"), unless the caller updated it already (`updated`). One an earlier attempt was sending is this
 * run's send, not "already there".
 */
async function settleFound(deps: DeliverDeps, reply: SpooledReply, target: ReplyTarget, there: HeldCopy, updated: boolean): Promise<Delivery> {
  const outcome: HeldOutcome = updated ? { kind: 'updated' } : ((await deps.held?.settleReply(heldSourceOf(reply), there, replyUpdates(deps, reply.key))) ?? { kind: 'held' });
  const held = deps.state.sending.has(reply.key) ? {} : { held: true as const };
  switch (outcome.kind) {
    case 'changed':
      return { kind: 'changed', id: there.id };
    case 'conflict':
      return settle(deps, reply.key, target, { kind: 'refused', message: outcome.reasons.map((r) => r.message).join('; ') });
    case 'updated':
      return settle(deps, reply.key, target, { kind: 'sent', id: there.id, ...held, updated: true });
    default:
      return settle(deps, reply.key, target, { kind: 'sent', id: there.id, ...held });
  }
}

/** What a change line and a warning name of a reply. */
export const heldSourceOf = (reply: SpooledReply): HeldSource => ({ sourceKey: reply.sourceKey ?? reply.key, position: reply.position, item: reply.item });

/** A reply's update as the run journal has it, and the journaling of a new one (before its patch is sent). */
export function replyUpdates(deps: Pick<DeliverDeps, 'journal' | 'state'>, key: string): ReplyUpdates {
  return {
    earlier: () => journaledUpdate(deps, key),
    async journal(id, differences) {
      const line = await deps.journal.appendLocated({ t: 'reply-updating', stage: 'messages', key, id, differences: [...differences] });
      deps.state.updating.set(key, { id, line });
    },
  };
}

/** A reply's update the run journal has, read back from its line (the run keeps only where it is). */
async function journaledUpdate(deps: Pick<DeliverDeps, 'journal' | 'state'>, key: string): Promise<{ id: Int64; differences: ReplyDifference[] } | undefined> {
  const update = deps.state.updating.get(key);
  if (!update) return undefined;
  const event = await deps.journal.readLine(update.line);
  if (event.t !== 'reply-updating' || event.key !== key) throw new Error(`the journal line at byte ${update.line.offset} is not the update of reply ${JSON.stringify(key)}`);
  return { id: update.id, differences: event.differences };
}

function send(deps: DeliverDeps, body: SendMessageBody, target: ReplyTarget): Promise<Message> {
  const options = { signal: deps.signal };
  return target.kind === 'thread' ? deps.client.threads.send(target.threadId, body, options) : deps.client.channels.sendMessage(target.channelId, body, options);
}

export async function settle(deps: DeliverDeps, key: string, target: ReplyTarget, delivery: Delivery): Promise<Delivery> {
  if (delivery.kind === 'sent') {
    const marks = { ...(target.kind === 'channel' ? { orphan: true } : {}), ...(delivery.held ? { held: true as const } : {}), ...(delivery.updated ? { updated: true as const } : {}) };
    // Where it went, for a later run's reply that answers it (earlier-threads.ts); Slack's need not say.
    const placed = target.kind === 'thread' && repliesMayNest(deps.stage) ? { thread: target.threadId } : {};
    await deps.journal.append({ t: 'reply-sent', stage: 'messages', key, id: delivery.id, ...marks, ...placed });
    deps.state.sent.set(key, { id: delivery.id, orphan: marks.orphan === true, ...(delivery.held ? { held: true } : {}), ...(delivery.updated ? { updated: true } : {}) });
  } else if (delivery.kind === 'refused') {
    await deps.journal.append({ t: 'reply-refused', stage: 'messages', key, message: delivery.message });
    deps.state.refused.set(key, delivery.message);
  }
  deps.state.sending.delete(key);
  return delivery;
}

/** The reply with this key, if the platform already holds it where it was being sent. */
async function lookUp(deps: DeliverDeps, key: string, target: ReplyTarget): Promise<Int64 | undefined> {
  return (await keysAt(deps, target)).get(key)?.id;
}

/**
 * Every message the target holds, by reply key, with its compared fields. In a channel (where orphans go) only the messages that can
 * be replies, and of those only keys `wanted` may hold, are kept: a channel holds every message of its
 * channel, and this table lives until the pass ends. Keys are copies, not views of the page's text, which
 * would keep each page alive.
 */
export function keysAt(deps: Pick<DeliverDeps, 'client' | 'stage' | 'signal'>, target: ReplyTarget, wanted?: (key: string) => boolean): Promise<Map<string, HeldCopy>> {
  return repliesAt(deps, target, heldCopyOf, wanted);
}

/** What a reply found already there is compared by (held-records.ts). */
export const heldCopyOf = (message: Message): HeldCopy => ({ id: message.id, fields: comparedFieldsOf('messages', message as Record<string, unknown>) });

/** keysAt keeping what `pick` takes of each message (its id for the replies pass, the whole message for verification). */
export async function repliesAt<T>(deps: Pick<DeliverDeps, 'client' | 'stage' | 'signal'>, target: ReplyTarget, pick: (message: Message) => T, wanted?: (key: string) => boolean): Promise<Map<string, T>> {
  const options = { pageSize: 100, signal: deps.signal };
  const messages = target.kind === 'thread' ? deps.client.threads.messages(target.threadId, options) : deps.client.channels.messages(target.channelId, options);
  const found = new Map<string, T>();
  for await (const message of messages) {
    if (target.kind === 'channel' && !mayBeReply(deps.stage, message.properties)) continue;
    const key = replyKeyOf(deps.stage, message.properties);
    if (key !== undefined && !found.has(key) && (target.kind === 'thread' || wanted === undefined || wanted(key))) found.set(detachString(key), pick(message));
  }
  return found;
}
