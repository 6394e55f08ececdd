import { sameJsonValue } from './lossless-json.js';
import { isPlainObject } from './plain-object.js';

/**
 * A value as a JSON merge patch (RFC 7396) can leave it: an object member holding null is no member, at any
 * depth of objects (null in a patch removes the member, so no patch can set one). Arrays are replaced whole
 * by a patch, so their elements are kept as they are. Pure; returns the same value when nothing is removed.
 */
export function withoutNullMembers(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== null && member !== undefined) out[key] = withoutNullMembers(member);
  return out;
}

/**
 * Whether two property objects are the same once a merge patch has made one of them: a member holding null
 * and an absent one are the same (an import may keep the null, the patch that sets it removes the member).
 */
export function samePatchedValue(a: unknown, b: unknown): boolean {
  return sameJsonValue(withoutNullMembers(a), withoutNullMembers(b));
}
