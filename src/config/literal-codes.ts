import { isPair, isScalar, isSeq, visit } from 'yaml';
import type { Document } from 'yaml';

/**
 * A pipeline file's unquoted scalars are what the user wrote, and YAML's typing must not change them
 * silently: YAML alone reads `007` as 7, `1.50` as 1.5, `0x1F` as 31, `1e3` as 1000 and `True` as true.
 *
 * - Keys (value-map keys, property names) are names: always the text written (`01:` is "01", `True:` "True").
 * - Condition values (`equals`, `notEquals`, items of `in`, `notIn`) are compared with source values as
 *   text: a number or boolean is the text written, so `equals: 007` skips "007" and not "7", and
 *   `equals: True` the CSV text "True" (conditions.ts also lets it hold for a JSON true).
 * - Values the mapping puts into items (`const`, `default`, value-map values, at any depth): a number
 *   stays a number only when the number gives back the text written (42, -3, 1.5); `007`, `1.10`, `0x1F`,
 *   `1e3`, `+1`, `.inf` stay their text, and a long integer (beyond 2^53) is a bigint with every digit.
 */

const CONDITION_VALUE_KEYS = new Set(['equals', 'notEquals']);
const CONDITION_LIST_KEYS = new Set(['in', 'notIn']);
/** Keys whose value (at any depth) becomes a value of import items. */
const ITEM_VALUE_KEYS = new Set(['const', 'default', 'map']);

const keyOf = (node: unknown): unknown => (isPair(node) && isScalar(node.key) ? node.key.value : undefined);

type ScalarPlace = 'key' | 'condition' | 'item-value' | 'other';

/** Where the scalar reached by `key` under `ancestors` (as `visit` gives them) stands in a pipeline file. */
function placeOf(key: number | 'key' | 'value' | null, ancestors: readonly unknown[]): ScalarPlace {
  if (key === 'key') return 'key';
  const parent = ancestors[ancestors.length - 1];
  if (key === 'value' && CONDITION_VALUE_KEYS.has(keyOf(parent) as string)) return 'condition';
  if (typeof key === 'number' && isSeq(parent) && CONDITION_LIST_KEYS.has(keyOf(ancestors[ancestors.length - 2]) as string)) return 'condition';
  if (ancestors.some((a) => ITEM_VALUE_KEYS.has(keyOf(a) as string))) return 'item-value';
  return 'other';
}

/** A decimal integer as written by JSON (no sign, leading zero or exponent): read exactly as a bigint when past 2^53. */
const LONG_INTEGER = /^-?[1-9]\d{15,}$/;

/** A number in an item value: itself when it gives back `text`, a bigint for a long integer, else the text. */
function itemNumber(text: string, value: number | bigint): unknown {
  if (String(value) === text) return value;
  if (LONG_INTEGER.test(text)) return BigInt(text);
  return text;
}

/**
 * What a plain scalar written as `text` (in the file, or what a `${VAR}` in it gave), that YAML types as
 * `typed`, must be at its place: see the head of this file.
 */
export function writtenScalar(text: string, typed: unknown, key: number | 'key' | 'value' | null, ancestors: readonly unknown[]): unknown {
  const isNumber = typeof typed === 'number' || typeof typed === 'bigint';
  if (!isNumber && typeof typed !== 'boolean' && !(key === 'key' && typed === null)) return typed;
  const place = placeOf(key, ancestors);
  if (place === 'key' || place === 'condition') return text;
  if (place === 'item-value' && isNumber) return itemNumber(text, typed);
  return typed;
}

/** Gives every unquoted scalar the value writtenScalar says (`007` stays "007" where it is a code or a value). */
export function keepLiteralCodesAsWritten(doc: Document): void {
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (node.type !== 'PLAIN' || node.source === undefined || typeof node.value === 'string') return;
      node.value = writtenScalar(node.source, node.value, key, ancestors);
    },
  });
}
