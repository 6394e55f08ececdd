import { createHash } from 'node:crypto';
import { withoutNullMembers } from '../../shared/merge-patch.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import { isPlainObject } from '../../shared/plain-object.js';
import { withoutPlacementFacts } from '../../transform/index.js';
import { ownProperties } from './compare-records.js';

/** A message's content as verification compares it (type, author, body, group tag, own properties). */
export interface MessageContent {
  type?: unknown;
  user?: unknown;
  body?: unknown;
  groupTag?: unknown;
  properties?: unknown;
}

/**
 * The print of a message's content (a sent item's, a pruned run's imported index's, or the source's),
 * whatever the order of members or a null's presence: two versions of one key compared without their bodies
 * held.
 */
export function messageContentPrint(item: MessageContent): string {
  const properties = withoutPlacementFacts(ownProperties(isPlainObject(item.properties) ? item.properties : undefined));
  const picked = { type: item.type, user: item.user, body: item.body, groupTag: item.groupTag, properties };
  return createHash('sha256').update(stringifyJson(sortedMembers(withoutNullMembers(picked)))).digest('base64');
}

function sortedMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedMembers);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortedMembers(value[k])]));
}
