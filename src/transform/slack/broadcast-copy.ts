import type { SlackMappingContext } from './context.js';
import { slackSourceKey } from './keys.js';
import type { PendingMessage } from './messages.js';
import { SOURCE_PROPERTY, type MessageSourceFacts } from './source-properties.js';

/**
 * A reply "also sent to the channel" (Slack `thread_broadcast`) shows in its thread and in the channel at its
 * time. The platform keeps a message in one place, so the channel gets a copy: the reply's items (each part)
 * as channel messages, keyed `…/broadcast` (a record of its own, counted read and imported), with no
 * `thread` (the import sends it with the channel's messages, and the moved-orphans step, which looks for a
 * reply's earlier channel copies by the reply's key, never takes it for one) and `broadcastOf` naming the
 * reply. Wanted only for a reply sent into its thread: a reply in the channel (flattened, or its root
 * missing) already stands there at its time.
 */
export function broadcastCopiesOf(reply: readonly PendingMessage[], context: SlackMappingContext, occurrence: number): PendingMessage[] {
  return reply.map(({ channelKey, item }) => {
    const { thread, ...facts } = item.properties![SOURCE_PROPERTY] as MessageSourceFacts;
    const copyFacts: MessageSourceFacts = { ...facts, id: `${facts.id}/broadcast`, broadcastOf: { reply: facts.id, root: thread!.root } };
    const sourceKey = slackSourceKey.message(context.directory.teamId, channelKey, facts.ts, occurrence, facts.part?.index ?? 1, true);
    return { channelKey, item: { ...item, properties: { ...item.properties, [SOURCE_PROPERTY]: copyFacts }, idempotencyKey: context.keyFor('messages', sourceKey) }, sourceKey };
  });
}

/** Whether a mapped message is a reply also sent to the channel that goes into its thread, so it wants a channel copy. */
export function wantsBroadcastCopy(subtype: string | undefined, thread: MessageSourceFacts['thread'], context: SlackMappingContext): boolean {
  return context.broadcastCopies && subtype === 'thread_broadcast' && thread !== undefined && !thread.isRoot && thread.rootMissing !== true;
}
