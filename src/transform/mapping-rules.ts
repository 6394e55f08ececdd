import { BAD } from './coerce.js';
import { comparedText, conditionText, denotesNumber } from './conditions.js';
import { wholeNumberText } from './whole-number-text.js';
import { createNameAllocator, makeValidName, type NameAllocator } from './names.js';
import type { UniquePolicy } from './mapping-spec.js';
import { reason, type Reason } from './types.js';

/**
 * What compiled mappings call at run time for value maps, unique names and user references
 * (compile-mapping.ts passes these to the generated function as `R.*`).
 */

/** A users-stage source key → that user's name on the platform (undefined: not imported). */
export type UserNameLookup = (sourceKey: string) => string | undefined;

/** A stage's unique-name state: names handed out so far, and which key holds each. */
export interface UniqueNames {
  policy: UniquePolicy;
  allocator: NameAllocator;
  byKey: Map<string, string>;
  holderOf: Map<string, string>;
}

export function createUniqueNames(policy: UniquePolicy): UniqueNames {
  return { policy, allocator: createNameAllocator(), byKey: new Map(), holderOf: new Map() };
}

const MAX_LISTED_KEYS = 12;

function describeKeys(table: ReadonlyMap<string, unknown>): string {
  const keys = [...table.keys()];
  const listed = keys.slice(0, MAX_LISTED_KEYS).map((k) => JSON.stringify(k)).join(', ');
  return keys.length > MAX_LISTED_KEYS ? `${listed}, … (${keys.length} keys)` : listed;
}

/**
 * A value map: the entry for the value's text (a JSON true or false: else the key that is its name in
 * another case, `True:` as YAML writes it; a JSON number: else a key denoting it, `2.0:` for 2; text of a whole
 * number with a zero fraction, `1.0`: else the key of that whole number; as conditions compare), else the default, else a reason naming the keys.
 */
function mapValue(table: ReadonlyMap<string, unknown>, value: unknown, fallback: unknown, reasons: Reason[], path: string, source: string): unknown {
  const text = comparedText(value);
  if (table.has(text)) return table.get(text);
  if (typeof value === 'boolean') for (const [key, entry] of table) if (key.toLowerCase() === text) return entry;
  if (typeof value === 'number') for (const [key, entry] of table) if (denotesNumber(key) && Number(key) === value) return entry;
  if (typeof value === 'string') {
    const whole = wholeNumberText(text);
    if (whole !== undefined && table.has(whole)) return table.get(whole);
  }
  if (fallback !== undefined) return fallback;
  reasons.push(reason(path, `one of the values the map lists (${describeKeys(table)})`, value, source));
  return BAD;
}

/**
 * A name unique in the stage, kept per source key so that a record seen again (a duplicate, a resumed run
 * reading the input again) gets the name it got first. Deterministic for a given input order.
 */
function uniqueName(state: UniqueNames, value: unknown, sourceKey: string | undefined, reasons: Reason[], path: string, source: string): unknown {
  if (typeof value !== 'string' || sourceKey === undefined) return value;
  const kept = state.byKey.get(sourceKey);
  if (kept !== undefined) return kept;
  if (state.policy === 'reject' && state.allocator.has(value)) {
    const holder = state.holderOf.get(value.toLowerCase());
    reasons.push(reason(path, `a name no earlier record of the stage has (record with key ${JSON.stringify(holder)} has it; unique: reject)`, value, source));
    return BAD;
  }
  const name = state.allocator.allocate(value);
  state.byKey.set(sourceKey, name);
  state.holderOf.set(name.toLowerCase(), sourceKey);
  return name;
}

/**
 * `ref: user`: a users-stage source key (or a list of them) becomes the user's platform name. `fromDefault`:
 * the key is the entry's `default` (the source field was missing), which the reason says.
 */
function userRef(lookup: UserNameLookup | undefined, value: unknown, reasons: Reason[], path: string, source: string, fromDefault = false): unknown {
  if (lookup === undefined) throw new TypeError(`${path}: "ref: user" needs the users stage's names (CompileMappingOptions.userNames)`);
  if (Array.isArray(value)) {
    let failed = false;
    const out = value.map((v, i) => {
      const name = userRef(lookup, v, reasons, `${path}.${i}`, source, fromDefault);
      if (name === BAD) failed = true;
      return name;
    });
    return failed ? BAD : out;
  }
  const key = conditionText(value);
  const name = lookup(key);
  if (name !== undefined) return name;
  const why = fromDefault ? ' (the source field is missing, so the default was used)' : '';
  const near = nearKey(lookup, key);
  const hint = near === undefined ? '' : ` (the key ${JSON.stringify(near)} differs from it only in spaces, case or Unicode form: set trim, case or unicode on this entry)`;
  reasons.push(reason(path, `the key of a user that the users stage imported${why}${hint}`, value, source));
  return BAD;
}

/**
 * A users-stage key that reads as `key` does (a spreadsheet's ` U1`, `u1`, a combining accent): looked for
 * only when `key` names no user, so that the reason can say which option would make it one.
 */
function nearKey(lookup: UserNameLookup, key: string): string | undefined {
  const trimmed = key.trim();
  const forms = [trimmed, trimmed.normalize('NFC'), trimmed.normalize('NFD')];
  for (const form of [...forms, ...forms.map((f) => f.toLowerCase()), ...forms.map((f) => f.toUpperCase())])
    if (form !== key && lookup(form) !== undefined) return form;
  return undefined;
}

/**
 * A value for an item field outside `properties`, where the platform takes text (names, bodies, members):
 * an integer beyond 2^53 from a JSON source (a bigint) is its digits there, alone or inside a list or an
 * object, as when sources read such integers as text. Within properties it stays a number.
 */
function digitsOfBigIntegers(value: unknown): unknown {
  if (typeof value === 'bigint') return String(value);
  if (value === null || typeof value !== 'object' || !holdsBigInteger(value)) return value;
  if (Array.isArray(value)) return value.map(digitsOfBigIntegers);
  const out: Record<string, unknown> = {};
  // As JSON.parse: "__proto__" is an own property, never the prototype.
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: digitsOfBigIntegers(v), writable: true, enumerable: true, configurable: true });
  return out;
}

function holdsBigInteger(value: object): boolean {
  for (const v of Object.values(value)) if (typeof v === 'bigint' || (v !== null && typeof v === 'object' && holdsBigInteger(v))) return true;
  return false;
}

export const RULE_HELPERS = { mapValue, uniqueName, userRef, makeValidName, digitsOfBigIntegers };
