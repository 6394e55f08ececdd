import type { MemberImportItem, MessageImportItem } from '../../wire/imports.js';
import type { PendingMember } from './channels.js';
import type { PendingMessage } from './messages.js';

/** The result of naming a channel by its platform id; `reason` says why it could not be. */
export type Resolved<T> = { ok: true; channelId: number; item: T } | { ok: false; reason: string };

/**
 * Fills a message's `channelId` from the pipeline's map of Slack channel id → platform channel id
 * (built after the channels import finished). Pure: the same inputs give the same item.
 */
export function resolveMessageChannel(pending: PendingMessage, channelIds: ReadonlyMap<string, number>): Resolved<MessageImportItem> {
  const channelId = channelIds.get(pending.channelKey);
  if (channelId === undefined) return { ok: false, reason: `channel ${pending.channelKey} has no platform id (it was not imported)` };
  return { ok: true, channelId, item: { ...pending.item, channelId } };
}

/** The same for a membership: the members import takes the channel id in its path, not in the item. */
export function resolveMemberChannel(pending: PendingMember, channelIds: ReadonlyMap<string, number>): Resolved<MemberImportItem> {
  const channelId = channelIds.get(pending.channelKey);
  if (channelId === undefined) return { ok: false, reason: `channel ${pending.channelKey} has no platform id (it was not imported)` };
  return { ok: true, channelId, item: pending.item };
}
