import { hash } from 'node:crypto';
import type { StageKind } from './types.js';

/** Version tag at the front of every key, so a future scheme can never collide with this one. */
export const IDEMPOTENCY_KEY_PREFIX = 'cp1-';

/**
 * The idempotency key of one record: `cp1-` + the first 32 hex digits (128 bits) of
 * sha256(JSON.stringify([pipelineId, stage, sourceKey])). JSON of an array separates the parts
 * unambiguously (no separator character can be forged by a name). Same pipeline id, stage and source key
 * → same key, in every run and on every machine; keys are unique across stages and pipelines, which
 * matters because the platform keeps one key space for the whole application (decisions.md).
 */
export function idempotencyKeyFor(pipelineId: string, stage: StageKind, sourceKey: string): string {
  return idempotencyKeysOf(pipelineId, stage)(sourceKey);
}

/**
 * idempotencyKeyFor with the pipeline and stage fixed, for a stage's every record: the JSON of the first
 * two parts is made once (`[a,b,c]` is `[` + the JSON of each, joined by commas, + `]`, so the hashed
 * text is the same).
 */
export function idempotencyKeysOf(pipelineId: string, stage: StageKind): (sourceKey: string) => string {
  const head = `[${JSON.stringify(pipelineId)},${JSON.stringify(stage)},`;
  // crypto.hash (one shot) costs a fifth of createHash().update().digest() per record.
  return (sourceKey) => IDEMPOTENCY_KEY_PREFIX + hash('sha256', `${head}${JSON.stringify(sourceKey)}]`, 'hex').slice(0, 32);
}

/**
 * The text of a record's source key: one field's value as text, or for several key fields the JSON array
 * of their texts. Undefined when any part is missing (undefined, null, empty text or spaces only) or is no key at all
 * (isKeyless: the record is rejected, saying so).
 */
export function sourceKeyOf(values: readonly unknown[]): string | undefined {
  if (values.length === 1) return keyText(values[0]);
  const parts: string[] = [];
  for (const v of values) {
    const t = keyText(v);
    if (t === undefined) return undefined;
    parts.push(t);
  }
  return JSON.stringify(parts);
}

function keyText(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '' || isKeyless(v)) return undefined;
  // Text of spaces only shows as an empty cell: taken as a key, every such record would be one record.
  if (typeof v === 'string') return isBlank(v) ? undefined : v;
  return String(v);
}

/** Text of spaces only (a spreadsheet cell that shows nothing; conditions take it for empty too). */
export function isBlank(text: string): boolean {
  // Per key field of every record: text starting with a printable ASCII character is not blank, without trim's copy.
  const first = text.charCodeAt(0);
  if (first > 0x20 && first < 0x7f) return false;
  return text.trim() === '';
}

/**
 * A value that names nothing as a key: an object, a list, true or false (from JSON sources). Its JSON text
 * would stand in for a key the source does not have, and every record holding `true` would be one item.
 */
export function isKeyless(v: unknown): boolean {
  return (typeof v === 'object' && v !== null) || typeof v === 'boolean';
}
