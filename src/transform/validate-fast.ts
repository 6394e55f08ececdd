import { isPlainObject } from '../shared/plain-object.js';
import { LIMITS } from '../wire/imports.js';
import { reason } from './types.js';
import type { Reason, StageKind } from './types.js';
import { isInt64 } from '../shared/int64.js';

/**
 * Hand-written validators for the four import item kinds, equivalent to the strict zod schemas in
 * src/wire/imports.ts (test/transform/validator-agreement.test.ts checks that both accept and refuse the same
 * items, with the same field paths). They exist because zod costs several microseconds per item, which alone
 * would break the CPU budget per record; these cost a few property reads.
 *
 * Like zod, the cross-field rules (DIRECT member counts, TEXT needs a user, …) are checked unless a field
 * has the wrong type or is missing (zod's "aborting" issues); bounds and unknown fields do not stop them.
 * Returns undefined when the item is valid, else every reason.
 */
export type ItemValidator = (item: unknown) => Reason[] | undefined;

const USER_KEYS = new Set(['name', 'displayName', 'isGuest', 'properties', 'displayPicture', 'idempotencyKey']);
const PICTURE_KEYS = new Set(['url', 'name', 'contentType', 'size']);
const CHANNEL_KEYS = new Set(['type', 'members', 'name', 'displayName', 'creator', 'properties', 'idempotencyKey']);
const MEMBER_KEYS = new Set(['username', 'idempotencyKey']);
const MESSAGE_KEYS = new Set(['type', 'channelId', 'body', 'user', 'groupTag', 'properties', 'idempotencyKey']);

/** The fields an import item of each kind may have (the strict schemas of src/wire/imports.ts). */
export const ITEM_FIELDS: Readonly<Record<StageKind, ReadonlySet<string>>> = { users: USER_KEYS, channels: CHANNEL_KEYS, members: MEMBER_KEYS, messages: MESSAGE_KEYS };
/** The fields of a user's displayPicture. */
export const PICTURE_FIELDS: ReadonlySet<string> = PICTURE_KEYS;

type Obj = Record<string, unknown>;

/** Reasons found so far, and whether one of them is a wrong type or a missing field (zod would abort). */
interface Found extends Array<Reason> {
  typeError?: boolean;
}

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Limits count UTF-16 code units (LIMITS); said where the text over one has characters that count 2. */
const UNIT_NOTE = '(UTF-16 code units: a character beyond U+FFFF, such as an emoji, counts 2)';

function text(out: Found, item: Obj, key: string, path: string, min: number, max: number, required: boolean): boolean {
  const v = item[key];
  if (v === undefined || typeof v !== 'string') {
    if (v === undefined && !required) return true;
    out.typeError = true;
    out.push(reason(path, max === Infinity ? `text of at least ${min} character` : `text of ${min} to ${max} characters`, v));
    return false;
  }
  if (v.length < min || v.length > max) {
    const unit = v.length > max && /[\uD800-\uDFFF]/.test(v) ? ` ${UNIT_NOTE}` : '';
    out.push(reason(path, max === Infinity ? `text of at least ${min} character` : `text of ${min} to ${max} characters${unit}`, v));
    return false;
  }
  return true;
}

function unknownKeys(out: Found, item: Obj, allowed: Set<string>, prefix: string): void {
  for (const key in item)
    if (!allowed.has(key))
      out.push({
        field: prefix + key,
        expected: `no such field (allowed: ${[...allowed].join(', ')}); put source facts into properties`,
        found: 'a field the import does not carry',
        message: `${prefix + key}: this import item has no field ${JSON.stringify(key)} (allowed: ${[...allowed].join(', ')}); put source facts into properties`,
      });
}

function properties(out: Found, item: Obj, key: string, required: boolean): void {
  const v = item[key];
  if (v === undefined ? required : !isPlainObject(v)) {
    out.typeError = true;
    out.push(reason(key, 'an object', v));
  }
}

function idempotencyKey(out: Found, item: Obj): void {
  text(out, item, 'idempotencyKey', 'idempotencyKey', 1, LIMITS.idempotencyKeyLength, false);
}

function notAnObject(item: unknown): Reason[] {
  return [reason('', 'an object', item)];
}

const validateUser: ItemValidator = (item) => {
  if (!isObject(item)) return notAnObject(item);
  const out: Found = [];
  unknownKeys(out, item, USER_KEYS, '');
  text(out, item, 'name', 'name', 1, LIMITS.nameLength, true);
  text(out, item, 'displayName', 'displayName', 1, LIMITS.displayNameLength, true);
  if (typeof item.isGuest !== 'boolean') {
    out.typeError = true;
    out.push(reason('isGuest', 'a boolean', item.isGuest));
  }
  properties(out, item, 'properties', true);
  const picture = item.displayPicture;
  if (picture !== undefined) {
    if (!isObject(picture)) {
      out.typeError = true;
      out.push(reason('displayPicture', 'an object {url, name, contentType, size}', picture));
    }
    else {
      unknownKeys(out, picture, PICTURE_KEYS, 'displayPicture.');
      text(out, picture, 'url', 'displayPicture.url', 1, Infinity, true);
      text(out, picture, 'name', 'displayPicture.name', 1, Infinity, true);
      text(out, picture, 'contentType', 'displayPicture.contentType', 1, Infinity, true);
      const size = picture.size;
      if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
        // zod aborts on a non-number and on a fraction (its int check), not on range.
        if (typeof size !== 'number' || !Number.isInteger(size)) out.typeError = true;
        out.push(reason('displayPicture.size', 'a whole number of bytes, 0 or more', size));
      }
    }
  }
  idempotencyKey(out, item);
  return out.length === 0 ? undefined : out;
};

const validateChannel: ItemValidator = (item) => {
  if (!isObject(item)) return notAnObject(item);
  const out: Found = [];
  unknownKeys(out, item, CHANNEL_KEYS, '');
  const type = item.type;
  if (type !== 'DIRECT' && type !== 'PUBLIC' && type !== 'PRIVATE') {
    out.typeError = true;
    out.push(reason('type', 'one of DIRECT, PUBLIC, PRIVATE', type));
  }
  const members = item.members;
  if (!Array.isArray(members)) {
    out.typeError = true;
    out.push(reason('members', 'an array of usernames', members));
  } else
    for (let i = 0; i < members.length; i++) {
      const m: unknown = members[i];
      if (typeof m !== 'string' || m.length < 1 || m.length > LIMITS.nameLength) {
        if (typeof m !== 'string') out.typeError = true;
        out.push(reason(`members.${i}`, `a username of 1 to ${LIMITS.nameLength} characters`, m));
      }
    }
  text(out, item, 'name', 'name', 1, LIMITS.nameLength, false);
  text(out, item, 'displayName', 'displayName', 1, LIMITS.displayNameLength, false);
  text(out, item, 'creator', 'creator', 1, LIMITS.nameLength, false);
  properties(out, item, 'properties', false);
  idempotencyKey(out, item);
  if (out.typeError) return out;
  // Cross-field rules, unless a field has the wrong type (as zod's superRefine).
  const list = members as string[];
  const twice = list.find((name, i) => list.indexOf(name) !== i);
  if (twice !== undefined) out.push(reason('members', `unique usernames ("${twice}" is listed twice)`, members));
  if (type === 'DIRECT') {
    if (list.length < LIMITS.directMembersMin || list.length > LIMITS.directMembersMax)
      out.push(reason('members', `${LIMITS.directMembersMin} to ${LIMITS.directMembersMax} members for a DIRECT channel`, members));
    for (const field of ['name', 'displayName'] as const)
      if (item[field] !== undefined) out.push(reason(field, `no ${field}: it is only for PUBLIC and PRIVATE channels`, item[field]));
  }
  return out.length === 0 ? undefined : out;
};

const validateMember: ItemValidator = (item) => {
  if (!isObject(item)) return notAnObject(item);
  const out: Found = [];
  unknownKeys(out, item, MEMBER_KEYS, '');
  text(out, item, 'username', 'username', 1, LIMITS.nameLength, true);
  idempotencyKey(out, item);
  return out.length === 0 ? undefined : out;
};

const validateMessage: ItemValidator = (item) => {
  if (!isObject(item)) return notAnObject(item);
  const out: Found = [];
  unknownKeys(out, item, MESSAGE_KEYS, '');
  const type = item.type;
  if (type !== 'TEXT' && type !== 'SYSTEM_TEXT') {
    out.typeError = true;
    out.push(reason('type', 'one of TEXT, SYSTEM_TEXT', type));
  }
  const id = item.channelId;
  if (!isInt64(id) || id <= 0) {
    if (typeof id !== 'bigint' && (typeof id !== 'number' || !Number.isInteger(id))) out.typeError = true;
    out.push(reason('channelId', 'a positive whole number (the channel id)', id));
  }
  text(out, item, 'body', 'body', 1, LIMITS.bodyLength, true);
  text(out, item, 'user', 'user', 1, LIMITS.nameLength, false);
  text(out, item, 'groupTag', 'groupTag', 1, Infinity, false);
  properties(out, item, 'properties', false);
  idempotencyKey(out, item);
  if (out.typeError) return out;
  if (type === 'TEXT' && item.user === undefined) out.push(reason('user', 'the sender (user) of a TEXT message', undefined));
  if (type === 'SYSTEM_TEXT' && item.user !== undefined) out.push(reason('user', 'no user: a SYSTEM_TEXT message is sent by the application', item.user));
  return out.length === 0 ? undefined : out;
};

export const FAST_VALIDATORS: Record<StageKind, ItemValidator> = {
  users: validateUser,
  channels: validateChannel,
  members: validateMember,
  messages: validateMessage,
};
