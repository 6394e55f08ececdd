import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * Bytes that are not UTF-8, kept visible instead of silently becoming U+FFFD: each is replaced by a mark
 * that carries its value, and the record holding a mark is rejected by name (the field, the byte), never
 * sent with altered text. Used by every reader of text: the record formats (src/formats/decode-text.ts)
 * and the chat exports' JSON files.
 */

/**
 * An unreadable byte `b` becomes the character U+10FF00 + b (private use, plane 16), which is valid UTF-8
 * for every parser and keeps the byte's value for the message. In JavaScript text it is the surrogate pair
 * U+DBFF, U+DF00 + b. Records are searched for it only in files that had an unreadable byte.
 */
export const INVALID_BYTE_HIGH = 0xdbff;
export const INVALID_BYTE_LOW_BASE = 0xdf00;

/** The UTF-8 bytes of the mark for an unreadable byte. */
function markBytes(byte: number): number[] {
  const cp = 0x10ff00 + byte;
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
}

export function markText(byte: number): string {
  return String.fromCharCode(INVALID_BYTE_HIGH, INVALID_BYTE_LOW_BASE + byte);
}

const isContinuation = (b: number | undefined) => b !== undefined && (b & 0xc0) === 0x80;
const inRange = (b: number | undefined, lo: number, hi: number) => b !== undefined && b >= lo && b <= hi;

/** Length of the well-formed UTF-8 sequence at `i` (RFC 3629 table), or 0 when the byte at `i` starts none. */
function sequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  if (c < 0xc2) return 0;
  if (c < 0xe0) return isContinuation(b[i + 1]) ? 2 : 0;
  if (c < 0xf0) return inRange(b[i + 1], c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf) && isContinuation(b[i + 2]) ? 3 : 0;
  if (c < 0xf5) return inRange(b[i + 1], c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf) && isContinuation(b[i + 2]) && isContinuation(b[i + 3]) ? 4 : 0;
  return 0;
}

/**
 * Where a trailing sequence that may still be completed by the next read starts (the buffer's length when
 * there is none): it is held back so that a character split between two reads is not taken for bad bytes.
 */
function completeLength(b: Uint8Array): number {
  for (let i = b.length - 1; i >= Math.max(0, b.length - 3); i--) {
    const c = b[i]!;
    if ((c & 0xc0) === 0x80) continue;
    const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    return b.length - i < need ? i : b.length;
  }
  return b.length;
}

/** UTF-8 with every unreadable byte replaced by its mark; `marked` counts them. */
function markInvalidUtf8(b: Uint8Array): { bytes: Buffer; marked: number } {
  const parts: Buffer[] = [];
  let marked = 0;
  let runStart = 0;
  for (let i = 0; i < b.length; ) {
    const n = sequenceLength(b, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (i > runStart) parts.push(Buffer.from(b.subarray(runStart, i)));
    parts.push(Buffer.from(markBytes(b[i]!)));
    marked++;
    i++;
    runStart = i;
  }
  if (runStart < b.length) parts.push(Buffer.from(b.subarray(runStart)));
  return { bytes: Buffer.concat(parts), marked };
}

/**
 * A whole file's UTF-8 bytes as text, each unreadable byte marked (see INVALID_BYTE_HIGH) instead of
 * silently becoming U+FFFD; `invalidBytes` counts them (0: the text is exactly the file's).
 */
export function utf8TextMarked(bytes: Buffer): { text: string; invalidBytes: number } {
  if (isUtf8(bytes)) return { text: bytes.toString('utf8'), invalidBytes: 0 };
  const { bytes: marked, marked: invalidBytes } = markInvalidUtf8(bytes);
  return { text: marked.toString('utf8'), invalidBytes };
}

/**
 * UTF-8 read in pieces: each piece's bytes with the unreadable ones marked, a character split between two
 * pieces held back until the next; `marked` counts the marks made so far.
 */
export class Utf8Marking {
  marked = 0;
  private held: Buffer | undefined;

  /** The bytes of `chunk` ready to be parsed (`last`: nothing follows, so nothing is held back). */
  take(chunk: Buffer, last: boolean): Buffer {
    const data = this.held ? Buffer.concat([this.held, chunk]) : chunk;
    const end = last ? data.length : completeLength(data);
    this.held = end < data.length ? Buffer.from(data.subarray(end)) : undefined;
    const body = data.subarray(0, end);
    if (body.length === 0 || isUtf8(body)) return body;
    const { bytes, marked } = markInvalidUtf8(body);
    this.marked += marked;
    return bytes;
  }
}

const MARK_HIGH = String.fromCharCode(INVALID_BYTE_HIGH);

/** Utf8Marking as a stream: UTF-8 bytes in, the same with unreadable bytes marked out. */
export class Utf8MarkingStream extends Transform {
  private readonly utf8 = new Utf8Marking();

  /** Marks made so far. */
  get marked(): number {
    return this.utf8.marked;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = this.utf8.take(chunk, false);
    callback(null, bytes.length > 0 ? bytes : undefined);
  }

  override _flush(callback: TransformCallback): void {
    const bytes = this.utf8.take(Buffer.alloc(0), true);
    callback(null, bytes.length > 0 ? bytes : undefined);
  }
}

/** Where a value holds a mark, and the byte it stands for. */
export interface Unreadable {
  /** Where in the record: a field name, a path into nested JSON (`user.name`), or '' for the record's raw text. */
  field: string;
  byte: number;
  /** 1-based character in the field's text. */
  at: number;
  /** The field's name itself holds the byte (a CSV header, a JSON key). */
  inName: boolean;
  /** The text holding it: the field's value, or the name. */
  text: string;
}

function markIn(text: string): { at: number; byte: number } | undefined {
  for (let i = text.indexOf(MARK_HIGH); i !== -1; i = text.indexOf(MARK_HIGH, i + 1)) {
    const low = text.charCodeAt(i + 1) - INVALID_BYTE_LOW_BASE;
    if (low >= 0 && low <= 0xff) return { at: i + 1, byte: low };
  }
  return undefined;
}

/** The first mark a value holds (`path`: where the value is, '' at the top). */
export function findIn(value: unknown, path: string): Unreadable | undefined {
  return findText(value, path, markIn);
}

/** Where a text `search` finds something in a value, and what: in a string, or in an object's key or value. */
export type TextFound<T> = T & { field: string; inName: boolean; text: string };

/** The first text of a value (strings, keys of objects, depth first) in which `search` finds something. */
export function findText<T extends object>(value: unknown, path: string, search: (text: string) => T | undefined): TextFound<T> | undefined {
  if (typeof value === 'string') {
    const m = search(value);
    return m && { ...m, field: path, inName: false, text: value };
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findText(value[i], path === '' ? String(i) : `${path}.${i}`, search);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const inner = path === '' ? key : `${path}.${key}`;
    const m = search(key);
    if (m) return { ...m, field: inner, inName: true, text: key };
    const found = findText((value as Record<string, unknown>)[key], inner, search);
    if (found) return found;
  }
  return undefined;
}

/** The value with every mark shown as U+FFFD (for the rejects file, which must stay readable). */
export function shownAsReplacement(value: unknown): unknown {
  if (typeof value === 'string') return value.includes(MARK_HIGH) ? value.replace(/\uDBFF[\uDF00-\uDFFF]/g, '\uFFFD') : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(shownAsReplacement);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [shownAsReplacement(k) as string, shownAsReplacement(v)]));
}

/** A byte as `0xE9`. */
export const hexByte = (byte: number) => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/** Why a value holding an unreadable byte's mark cannot be taken: the field (absent when a name holds it) and the byte. */
export interface UnreadableText {
  field?: string;
  reason: string;
  /** The text holding the byte, shown with U+FFFD (what a reason found). */
  foundText: string;
  /** The value with its marks shown as U+FFFD, for a rejects file. */
  raw: unknown;
}

/**
 * Where a parsed value (a record, a message) holds a byte its file's encoding could not read, worded for a
 * reject; undefined when it holds none. Called only for files where a byte was marked.
 */
export function unreadableTextIn(value: unknown, encoding: string): UnreadableText | undefined {
  const found = findIn(value, '');
  if (!found) return undefined;
  const where = found.inName ? `the field name ${JSON.stringify(shownAsReplacement(found.field))}` : `field ${JSON.stringify(found.field)}`;
  return {
    reason: `invalid ${encoding} in ${where}: byte ${hexByte(found.byte)} at character ${found.at} cannot be read as ${encoding} (shown as U+FFFD here)`,
    foundText: shownAsReplacement(found.text) as string,
    raw: shownAsReplacement(value),
    ...(found.inName ? {} : { field: found.field }),
  };
}

