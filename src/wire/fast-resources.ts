import { hasNoSnakeKeys, isInt64, isObject, isOptional, isOptionalBoolean, isOptionalSafeInteger, isOptionalString, isPlainRecord } from './fast-check.js';

/**
 * Fast checks (fast-check.ts) of the resources read in bulk, one per schema of resources.ts: each says yes
 * only when that schema would accept the value and give it back unchanged.
 */

/** resources.ts `Links`. */
export function isPlainLinks(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  for (const name in value as Record<string, unknown>) {
    const link = (value as Record<string, unknown>)[name];
    if (!isObject(link) || typeof link.href !== 'string' || !isOptionalBoolean(link.templated)) return false;
  }
  return true;
}

/** resources.ts `User`. */
export function isPlainUser(value: unknown): boolean {
  if (!isObject(value) || !hasNoSnakeKeys(value)) return false;
  const u = value;
  return (
    isInt64(u.id) &&
    typeof u.name === 'string' &&
    isOptionalString(u.type) &&
    isOptionalString(u.displayName) &&
    isOptionalString(u.displayPictureUrl) &&
    isOptionalBoolean(u.isGuest) &&
    isOptional(u.presence, (p) => isObject(p) && hasNoSnakeKeys(p) && isOptionalString(p.status) && isOptionalBoolean(p.online)) &&
    isOptionalString(u.callStatus) &&
    isOptional(u.properties, isPlainRecord) &&
    isOptionalString(u.createdTime) &&
    isOptional(u._links, isPlainLinks)
  );
}

/** resources.ts `Message`. */
export function isPlainMessage(value: unknown): boolean {
  if (!isObject(value) || !hasNoSnakeKeys(value)) return false;
  const m = value;
  return (
    isInt64(m.id) &&
    typeof m.type === 'string' &&
    isOptionalSafeInteger(m.nestedLevel) &&
    isOptional(m.channelId, isInt64) &&
    isOptional(m.user, isPlainUser) &&
    isOptionalString(m.body) &&
    isOptionalString(m.groupTag) &&
    isOptionalSafeInteger(m.repliesCount) &&
    isOptional(m.properties, isPlainRecord) &&
    isOptionalString(m.lastEditedTime) &&
    isOptionalString(m.createdTime) &&
    isOptional(m._links, isPlainLinks)
  );
}

/** resources.ts `cursorPage(kind, item)`, given the item schema's fast check. */
export function isPlainCursorPage(value: unknown, kind: string, isPlainItem: (value: unknown) => boolean): boolean {
  if (!isObject(value)) return false;
  const embedded = value._embedded;
  if (embedded !== undefined) {
    if (!isObject(embedded)) return false;
    const items = embedded[kind];
    if (!Array.isArray(items)) return false;
    for (const item of items) if (!isPlainItem(item)) return false;
  }
  return isOptional(value._links, isPlainLinks) && isOptional(value.page, (p) => isObject(p) && hasNoSnakeKeys(p) && Number.isSafeInteger(p.size));
}
