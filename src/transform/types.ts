import type { ImportKind } from '../wire/imports.js';
import type { Int64 } from '../shared/int64.js';

/** Where a record came from (the same shape src/formats produces). */
export interface RecordPosition {
  file: string;
  /** 1-based line where the record starts (CSV, NDJSON). */
  line?: number;
  /** 0-based record number in the file. */
  index: number;
}

/** One thing wrong with a record. A rejected record carries every reason found, not only the first. */
export interface Reason {
  /** Path in the import item, dot-separated (`properties.joined`, `members.2`); `""` for the record itself. */
  field: string;
  /** What was expected there, for people: `a boolean (true/false, yes/no, 1/0)`. */
  expected: string;
  /** A short description of what was found (`"maybe"`, `missing`, `a number`). */
  found: string;
  /** The whole reason as one sentence. */
  message: string;
  /** The source field the value came from, when one did. */
  sourceField?: string;
}

export interface Accepted<T = Record<string, unknown>> {
  kind: 'accepted';
  item: T;
  position: RecordPosition;
  /** The record's source key (from the stage's `key` fields), as text. */
  sourceKey: string;
  /** The source record as read: what rejects.ndjson lists if a later check rejects it (re-fed input stays input). */
  raw?: unknown;
  /** Members and messages: the source key of the channel the record names. */
  channelKey?: string;
  /** Members and messages after resolution: the platform's numeric channel id. */
  channelId?: Int64;
  /** Messages of a stage with `thread`: the source key of the message this one replies to. */
  parentRef?: string;
  /** `duplicates: last-wins`, sharded: a later record of this key, in a channel another shard imports, wins. */
  supersededBy?: RecordPosition;
  /** `longBodies: split`: the record's further parts, to follow it in order (each its own record). */
  parts?: Accepted<T>[];
  /**
   * A Mattermost root post whose slot (channel, time, author) holds other posts of the export: their ids
   * (`properties.source.id`), its own among them, in the export's order; empty when too many to hold
   * (post-keys.ts). Absent: the post is alone in its slot.
   */
  slotSiblings?: readonly string[];
}

export interface Rejected {
  kind: 'rejected';
  position: RecordPosition;
  reasons: Reason[];
  /** The source record as read (or the raw text of an unparseable one). */
  raw: unknown;
  /** Members and messages of an export reader: the channel the record names (so a shard knows whose it is). */
  channelKey?: string;
}

/** A record left out on purpose (a skip rule, an empty row, a reader's own rule, a trial's cut); counted as skipped, never sent. */
export interface Skipped {
  kind: 'skipped';
  position: RecordPosition;
  /** Index of the matching rule in the stage's `skip` list (-1 for a built-in one), and the rule in words. */
  rule: number;
  because: string;
  /** The source record as read, when the reader has it: listed in the run folder's skipped/<stage>.ndjson. */
  raw?: unknown;
  /** Left out by a trial run (`--limit`, `--sample`): counted, not listed (docs/accounting.md). */
  trial?: true;
  /** Members and messages of an export reader: the channel the record belongs to (so a shard knows whose it is). */
  channelKey?: string;
}

export type Processed<T = Record<string, unknown>> = Accepted<T> | Rejected | Skipped;

export type StageKind = ImportKind;

/**
 * Characters that change how the text after them displays or that do not show (bidi controls such as
 * U+202E, zero-width ones, line and paragraph separators), which JSON.stringify leaves as they are: in a
 * reason they are written as escapes, so a bad value cannot reorder or hide the rest of its report line.
 */
const UNSEEN = /[\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2069\uFEFF]/g;
const quoted = (text: string) => JSON.stringify(text).replace(UNSEEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The first `n` UTF-16 code units of a text, one fewer where the n-th would be half of a character. */
const headOf = (text: string, n: number) => text.slice(0, /[\uD800-\uDBFF]/.test(text.charAt(n - 1)) ? n - 1 : n);

/**
 * A text's length as limits count it (UTF-16 code units, LIMITS), and in characters too where they differ:
 * 20,001 emoji are 40,002 code units, over a limit of 40,000 that the writer's own count would not explain.
 */
function lengthInWords(text: string): string {
  let characters = 0;
  for (const _ of text) characters++;
  return characters === text.length ? `${text.length} characters` : `${text.length} UTF-16 code units, ${characters} characters`;
}

/** Short text for a found value in reasons: never the whole of a long value. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 60 ? `${quoted(headOf(value, 60))}… (${lengthInWords(value)})` : quoted(value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  // An integer beyond 2^53 from a JSON source: a number, as it was written.
  if (typeof value === 'bigint') return `number ${value}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return `an ${typeof value}`;
}

export function reason(field: string, expected: string, value: unknown, sourceField?: string): Reason {
  const found = describeFound(value);
  const where = field === '' ? 'the record' : field;
  const from = sourceField === undefined ? '' : ` (from source field ${JSON.stringify(sourceField)})`;
  const r: Reason = { field, expected, found, message: `${where}${from}: expected ${expected}, found ${found}` };
  if (sourceField !== undefined) r.sourceField = sourceField;
  return r;
}
