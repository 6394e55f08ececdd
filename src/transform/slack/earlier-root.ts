import { broadcastCopiesOf, wantsBroadcastCopy } from './broadcast-copy.js';
import type { SlackMappingContext } from './context.js';
import type { PendingMessage } from './messages.js';
import { SOURCE_PROPERTY, type MessageSourceFacts } from './source-properties.js';

const factsOf = (pending: PendingMessage): MessageSourceFacts => pending.item.properties![SOURCE_PROPERTY] as MessageSourceFacts;

/** The root a reply the mapping marked `rootMissing` names (undefined for any other message). */
export function missingRootOf(items: readonly PendingMessage[]): string | undefined {
  const thread = items.length === 0 ? undefined : factsOf(items[0]!).thread;
  return thread !== undefined && thread.isRoot !== true && thread.rootMissing === true ? thread.root : undefined;
}

/**
 * A reply marked `rootMissing` whose root is there after all (an earlier run imported it from an earlier,
 * date-ranged export; a later day file held it): mapped as it would be were the root met before it, the mark
 * dropped and, for a reply also sent to the channel, its channel copy after it. `root`: the ref the root is
 * known by now (an occurrence suffix, docs/slack-migration.md "Repeated ts"). Keys and other facts are unchanged.
 */
export function underFoundRoot(items: readonly PendingMessage[], context: SlackMappingContext, root?: string): PendingMessage[] {
  const replies = items.map((pending): PendingMessage => {
    const facts = factsOf(pending);
    const { rootMissing: _dropped, ...thread } = facts.thread!;
    if (root !== undefined) thread.root = root;
    return { ...pending, item: { ...pending.item, properties: { ...pending.item.properties, [SOURCE_PROPERTY]: { ...facts, thread } } } };
  });
  const first = factsOf(replies[0]!);
  return wantsBroadcastCopy(first.subtype, first.thread, context) ? [...replies, ...broadcastCopiesOf(replies, context, first.occurrence ?? 1)] : replies;
}
