import { z } from 'zod';
import { isoOfEpochMs } from '../../shared/iso-time.js';

/**
 * The Slack export records chatport reads (docs in /work/shared/docs/slack-export.md). Loose objects:
 * fields not named here are kept (they end up in `properties.source.extra`), and only the fields the
 * mapping relies on are typed. A record whose typed fields have the wrong type is rejected, with the path.
 */

const str = z.string();
const optStr = z.string().optional();
const optBool = z.boolean().optional();
/** Slack's ts: epoch seconds with a fraction, as a string. */
export const SLACK_TS = /^\d{1,12}(\.\d{1,9})?$/;
const ts = z.string().regex(SLACK_TS, "Slack's epoch-seconds form, e.g. \"1700000000.000100\"");

const textObject = z.looseObject({ value: optStr, creator: optStr, last_set: z.number().optional() });

export const SlackUser = z.looseObject({
  id: str.min(1),
  team_id: optStr,
  name: optStr,
  real_name: optStr,
  deleted: optBool,
  is_bot: optBool,
  is_app_user: optBool,
  is_admin: optBool,
  is_owner: optBool,
  is_primary_owner: optBool,
  is_restricted: optBool,
  is_ultra_restricted: optBool,
  tz: z.string().nullish(),
  tz_label: optStr,
  tz_offset: z.number().optional(),
  profile: z
    .looseObject({
      real_name: optStr,
      display_name: optStr,
      email: optStr,
      title: optStr,
      bot_id: optStr,
    })
    .optional(),
});
export type SlackUser = z.infer<typeof SlackUser>;

export const SlackConversation = z.looseObject({
  id: str.min(1),
  name: optStr,
  created: z.number().optional(),
  creator: optStr,
  user: optStr,
  is_archived: optBool,
  is_general: optBool,
  members: z.array(str).optional(),
  topic: textObject.optional(),
  purpose: textObject.optional(),
});
export type SlackConversation = z.infer<typeof SlackConversation>;

const reaction = z.looseObject({ name: str, users: z.array(str).optional(), count: z.number().optional() });
const file = z.looseObject({
  id: optStr,
  name: z.string().nullish(),
  title: z.string().nullish(),
  mimetype: optStr,
  size: z.number().optional(),
  url_private: optStr,
  url_private_download: optStr,
  permalink: optStr,
  mode: optStr,
});
export type SlackFile = z.infer<typeof file>;

export const SlackMessage = z.looseObject({
  type: optStr,
  subtype: optStr,
  ts,
  user: optStr,
  bot_id: optStr,
  username: optStr,
  text: optStr,
  thread_ts: ts.optional(),
  parent_user_id: optStr,
  reply_count: z.number().optional(),
  edited: z.looseObject({ user: optStr, ts: optStr }).optional(),
  reactions: z.array(reaction).optional(),
  files: z.array(file).optional(),
  attachments: z.array(z.looseObject({ fallback: optStr, text: optStr, title: optStr, title_link: optStr, from_url: optStr })).optional(),
  bot_profile: z.looseObject({ id: optStr, name: optStr, app_id: optStr }).optional(),
  user_profile: z.looseObject({ name: optStr, real_name: optStr, display_name: optStr }).optional(),
  team: optStr,
});
export type SlackMessage = z.infer<typeof SlackMessage>;

/**
 * SlackMessage's fast path, for the messages pass (zod's safeParse was about a quarter of the mapping's CPU): a
 * hand-written copy of the schema's checks that gives what zod gives (a loose object's typed keys first, in
 * the schema's order, then the others in the record's order, an own `__proto__` left out) or REFUSED. It may
 * refuse what zod accepts (zod then decides), never accept what zod refuses: a null in a typed field is
 * refused, so parseNullsAbsent takes it out. test/slack/records-fast.test.ts holds the two to that.
 */
type FastCheck = (value: unknown) => unknown;
const REFUSED: unique symbol = Symbol('refused');

const fastOptional =
  (check: FastCheck): FastCheck =>
  (value) =>
    value === undefined ? undefined : check(value);
const fastString: FastCheck = (value) => (typeof value === 'string' ? value : REFUSED);
const fastTs: FastCheck = (value) => (typeof value === 'string' && SLACK_TS.test(value) ? value : REFUSED);
const fastNumber: FastCheck = (value) => (typeof value === 'number' && Number.isFinite(value) ? value : REFUSED);
const fastOptString = fastOptional(fastString);
const fastNullishString: FastCheck = (value) => (value === null ? null : fastOptString(value));

function fastArray(element: FastCheck): FastCheck {
  return (value) => {
    if (!Array.isArray(value)) return REFUSED;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) if ((out[i] = element(value[i])) === REFUSED) return REFUSED;
    return out;
  };
}

function fastLooseObject(shape: Record<string, FastCheck>): FastCheck {
  const keys = Object.keys(shape);
  if (keys.length > 31) throw new RangeError('fastLooseObject: a shape of at most 31 keys (a bit each)');
  const checks = keys.map((key) => shape[key]!);
  const indexOf = new Map(keys.map((key, i) => [key, i]));
  // A key whose check refuses undefined must be present.
  const requiredBits = keys.reduce((bits, _key, i) => (checks[i]!(undefined) === REFUSED ? bits | (1 << i) : bits), 0);
  // The checked values of the call under way (one per typed key; a shape never holds itself, so no call nests in another).
  const checked = new Array<unknown>(keys.length);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return REFUSED;
    const record = value as Record<string, unknown>;
    // The record's keys once, checking only the typed ones it has (most of a message's typed keys are absent).
    let present = 0;
    for (const key in record) {
      const i = indexOf.get(key);
      if (i === undefined) continue;
      if ((checked[i] = checks[i]!(record[key])) === REFUSED) return REFUSED;
      present |= 1 << i;
    }
    if ((present & requiredBits) !== requiredBits) return REFUSED;
    const out: Record<string, unknown> = {};
    for (let i = 0, bits = present; bits !== 0; i++, bits >>>= 1) if (bits & 1) out[keys[i]!] = checked[i];
    for (const key in record) if (!indexOf.has(key) && key !== '__proto__') out[key] = record[key];
    return out;
  };
}

const slackMessageFast = fastLooseObject({
  type: fastOptString,
  subtype: fastOptString,
  ts: fastTs,
  user: fastOptString,
  bot_id: fastOptString,
  username: fastOptString,
  text: fastOptString,
  thread_ts: fastOptional(fastTs),
  parent_user_id: fastOptString,
  reply_count: fastOptional(fastNumber),
  edited: fastOptional(fastLooseObject({ user: fastOptString, ts: fastOptString })),
  reactions: fastOptional(fastArray(fastLooseObject({ name: fastString, users: fastOptional(fastArray(fastString)), count: fastOptional(fastNumber) }))),
  files: fastOptional(
    fastArray(
      fastLooseObject({
        id: fastOptString,
        name: fastNullishString,
        title: fastNullishString,
        mimetype: fastOptString,
        size: fastOptional(fastNumber),
        url_private: fastOptString,
        url_private_download: fastOptString,
        permalink: fastOptString,
        mode: fastOptString,
      }),
    ),
  ),
  attachments: fastOptional(fastArray(fastLooseObject({ fallback: fastOptString, text: fastOptString, title: fastOptString, title_link: fastOptString, from_url: fastOptString }))),
  bot_profile: fastOptional(fastLooseObject({ id: fastOptString, name: fastOptString, app_id: fastOptString })),
  user_profile: fastOptional(fastLooseObject({ name: fastOptString, real_name: fastOptString, display_name: fastOptString })),
  team: fastOptString,
});

/** How many null members one record may have taken out before its parse is given up (a bound on retries). */
const MAX_NULLS_TAKEN = 16;

/**
 * A Slack record parsed with a typed optional field holding null read as absent: Slack writes null for
 * some (a user's `real_name`, `email` or `profile`; a message's `parent_user_id`, `bot_profile`,
 * `attachments[].fallback`), and null entries in typed lists (`files: [null]`, `reactions: [null]`) are
 * left out. Only a failed parse pays: the null at the failing path is taken out of a copy
 * and the copy parsed again, so nulls in fields nobody types stay in `extra`, and a null in a `required`
 * top-level field (a user's `id`, a message's `ts`) still rejects the record.
 */
function parseNullsAbsent<T>(schema: z.ZodType<T>, raw: unknown, required: ReadonlySet<string>): Parsed<T> {
  let value = raw;
  for (let taken = 0; ; taken++) {
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data };
    const issue = result.error.issues[0]!;
    if (taken === MAX_NULLS_TAKEN) return failed(issue);
    const nullIn = nullEntryList(issue, value);
    if (nullIn === undefined && !isOptionalNull(issue, value, required)) return failed(issue);
    if (value === raw) value = structuredClone(raw);
    if (nullIn === undefined) deleteAt(value, issue.path);
    else takeNullsOut(valueAt(value, nullIn) as unknown[]);
  }
}

/**
 * The path of the typed list holding the null the issue names (`files: [null]`: Slack writes a deleted or
 * unexported file so), else undefined. Such an entry says nothing and Slack shows nothing for it.
 */
function nullEntryList(issue: z.core.$ZodIssue, value: unknown): readonly PropertyKey[] | undefined {
  if (issue.code !== 'invalid_type' || issue.path.length < 2 || typeof issue.path[issue.path.length - 1] !== 'number') return undefined;
  const list = issue.path.slice(0, -1);
  return valueAt(value, issue.path) === null && Array.isArray(valueAt(value, list)) ? list : undefined;
}

/** Takes every null entry out of a list at once (one parse more however many it holds). */
function takeNullsOut(list: unknown[]): void {
  let kept = 0;
  for (const entry of list) if (entry !== null) list[kept++] = entry;
  list.length = kept;
}

/** A users.json record (parseNullsAbsent: its `id` is required). */
export const parseSlackUser = (raw: unknown): Parsed<SlackUser> => parseNullsAbsent(SlackUser, raw, ID_REQUIRED);
/** A conversation list's record (parseNullsAbsent, `id` required): a rejected one takes its folder's messages with it. */
export const parseSlackConversation = (raw: unknown): Parsed<SlackConversation> => parseNullsAbsent(SlackConversation, raw, ID_REQUIRED);
/**
 * A day file's message (parseNullsAbsent: its `ts` is required). Most messages take slackMessageFast, a copy
 * the same as zod's; zod decides the rest (its nulls, its refusals and their messages).
 */
export function parseSlackMessage(raw: unknown): Parsed<SlackMessage> {
  const fast = fastSlackMessage(raw);
  return fast === undefined ? parseNullsAbsent(SlackMessage, raw, MESSAGE_REQUIRED) : { ok: true, value: fast };
}

/** What SlackMessage.safeParse gives for `raw` (see slackMessageFast), or undefined where zod must decide. */
export function fastSlackMessage(raw: unknown): SlackMessage | undefined {
  const fast = slackMessageFast(raw);
  return fast === REFUSED ? undefined : (fast as SlackMessage);
}
const ID_REQUIRED: ReadonlySet<string> = new Set(['id']);
const MESSAGE_REQUIRED: ReadonlySet<string> = new Set(['ts']);

/**
 * Whether an issue is a null member of an object, in a field the schema types but does not require (not a
 * `required` top-level field); a required nested field (a reaction's `name`) is named by the parse of the
 * copy, as missing.
 */
function isOptionalNull(issue: z.core.$ZodIssue, value: unknown, required: ReadonlySet<string>): boolean {
  if (issue.code !== 'invalid_type' || issue.path.length === 0 || valueAt(value, issue.path) !== null) return false;
  const parent = valueAt(value, issue.path.slice(0, -1));
  if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) return false;
  return !(issue.path.length === 1 && required.has(String(issue.path[0])));
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const step of path) at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[step] : undefined;
  return at;
}

function deleteAt(value: unknown, path: readonly PropertyKey[]): void {
  const parent = valueAt(value, path.slice(0, -1)) as Record<PropertyKey, unknown>;
  delete parent[path[path.length - 1]!];
}

/** A parse that failed, as data: the first issue's field path and message. */
export interface RecordProblem {
  field: string;
  reason: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: RecordProblem };

export function parseRecord<T>(schema: z.ZodType<T>, value: unknown): Parsed<T> {
  const result = schema.safeParse(value);
  return result.success ? { ok: true, value: result.data } : failed(result.error.issues[0]!);
}

function failed(issue: z.core.$ZodIssue): { ok: false; problem: RecordProblem } {
  return { ok: false, problem: { field: issue.path.join('.') || '(record)', reason: issue.message } };
}

/**
 * Compares two Slack ts strings exactly (a double cannot hold 10 + 6 digits without rounding): seconds
 * by length then digits, fractions as if padded with zeros. Allocates nothing (it runs in every sort).
 */
export function compareTs(a: string, b: string): number {
  if (a === b) return 0;
  const aDot = a.indexOf('.');
  const bDot = b.indexOf('.');
  const aSec = aDot < 0 ? a.length : aDot;
  const bSec = bDot < 0 ? b.length : bDot;
  if (aSec !== bSec) return aSec - bSec;
  for (let i = 0; i < aSec; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  // The fraction ends at the next dot, as split('.') would cut it.
  const aEnd = aDot < 0 ? aSec : nextDotOrEnd(a, aDot + 1);
  const bEnd = bDot < 0 ? bSec : nextDotOrEnd(b, bDot + 1);
  const aLen = aDot < 0 ? 0 : aEnd - aDot - 1;
  const bLen = bDot < 0 ? 0 : bEnd - bDot - 1;
  for (let i = 0, width = Math.max(aLen, bLen); i < width; i++) {
    const ca = i < aLen ? a.charCodeAt(aDot + 1 + i) : 48;
    const cb = i < bLen ? b.charCodeAt(bDot + 1 + i) : 48;
    if (ca !== cb) return ca < cb ? -1 : 1;
  }
  return 0;
}

function nextDotOrEnd(text: string, from: number): number {
  const dot = text.indexOf('.', from);
  return dot < 0 ? text.length : dot;
}

/** ISO 8601 UTC of a ts (millisecond precision; the exact ts is kept beside it). */
export function tsToIso(value: string): string {
  const dot = value.indexOf('.');
  const sec = dot < 0 ? value : value.slice(0, dot);
  const frac = dot < 0 ? '' : value.slice(dot + 1, nextDotOrEnd(value, dot + 1));
  const ms = Number(sec === '' ? '0' : sec) * 1000 + Number(frac.padEnd(3, '0').slice(0, 3));
  return isoOfEpochMs(ms);
}

/** ISO time of epoch seconds as Slack writes `created` and `last_set`; undefined for 0 or absent. */
export function epochToIso(seconds: number | undefined): string | undefined {
  return seconds === undefined || seconds <= 0 || !Number.isFinite(seconds) ? undefined : isoOfEpochMs(seconds * 1000);
}
