import { isPlainObject } from '../shared/plain-object.js';
import { LIMITS } from '../wire/imports.js';

/**
 * A quick yes for the common message import item, before the strict zod schema (src/wire/imports.ts) that
 * costs several microseconds an item. It only ever says yes to items that schema accepts (checked by
 * test/sandbox/fast-accept.test.ts); anything else, valid or not, goes to zod, whose verdict and wording
 * stand. At millions of items this is most of the sandbox's validation time.
 */
const MESSAGE_KEYS = new Set(['type', 'channelId', 'body', 'user', 'groupTag', 'properties', 'idempotencyKey']);

function optionalText(v: unknown, max: number): boolean {
  return v === undefined || (typeof v === 'string' && v.length >= 1 && v.length <= max);
}

export function surelyValidMessage(item: unknown): boolean {
  if (!isPlainObject(item)) return false;
  for (const key in item) if (!MESSAGE_KEYS.has(key)) return false;
  const { type, channelId, body, user, groupTag, properties, idempotencyKey } = item;
  if (type === 'TEXT') {
    if (user === undefined) return false;
  } else if (type !== 'SYSTEM_TEXT' || user !== undefined) return false;
  return (
    typeof channelId === 'number' && Number.isSafeInteger(channelId) && channelId > 0 &&
    typeof body === 'string' && body.length >= 1 && body.length <= LIMITS.bodyLength &&
    optionalText(user, LIMITS.nameLength) &&
    optionalText(groupTag, Infinity) &&
    (properties === undefined || isPlainObject(properties)) &&
    optionalText(idempotencyKey, LIMITS.idempotencyKeyLength)
  );
}
