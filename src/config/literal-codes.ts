import { isMap, isPair, isScalar, isSeq, visit } from 'yaml';
import type { Document } from 'yaml';

/**
 * Value-map keys and condition values are compared with source values as text, so they are the text written
 * in the pipeline file: YAML alone reads `007` as 7, `01` as 1, `1.50` as 1.5 and `0x1F` as 31, and a skip
 * rule `equals: 007` would then skip the records holding "7" and none holding "007", without a word.
 */

const CONDITION_VALUE_KEYS = new Set(['equals', 'notEquals']);
const CONDITION_LIST_KEYS = new Set(['in', 'notIn']);

const keyOf = (node: unknown): unknown => (isPair(node) && isScalar(node.key) ? node.key.value : undefined);

/**
 * Whether the scalar reached by `key` under `ancestors` (as `visit` gives them) is a value-map key
 * (`map: { 01: PUBLIC }`), a condition's value (`equals: 007`) or an item of a condition's list (`in: [01]`).
 */
export function isLiteralCodePosition(key: number | 'key' | 'value' | null, ancestors: readonly unknown[]): boolean {
  const parent = ancestors[ancestors.length - 1];
  if (key === 'key') return isMap(ancestors[ancestors.length - 2]) && keyOf(ancestors[ancestors.length - 3]) === 'map';
  if (key === 'value') return CONDITION_VALUE_KEYS.has(keyOf(parent) as string);
  if (typeof key === 'number') return isSeq(parent) && CONDITION_LIST_KEYS.has(keyOf(ancestors[ancestors.length - 2]) as string);
  return false;
}

/** Gives every unquoted number in a literal-code position its text as written (`007` stays "007"). */
export function keepLiteralCodesAsWritten(doc: Document): void {
  visit(doc, {
    Scalar(key, node, ancestors) {
      if (node.type !== 'PLAIN' || (typeof node.value !== 'number' && typeof node.value !== 'bigint')) return;
      if (node.source !== undefined && isLiteralCodePosition(key, ancestors)) node.value = node.source;
    },
  });
}
