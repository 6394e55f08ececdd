/**
 * A JSON string may write half of a UTF-16 surrogate pair alone (`"\ud800"`): JSON.parse accepts it, but it
 * is no Unicode character, so no UTF-8 text (what the platform stores) holds it, and it would arrive as
 * U+FFFD or be refused. A record holding one is refused, naming the field, as an unreadable byte is.
 *
 * Raw UTF-8 text cannot hold a lone surrogate (its bytes are invalid UTF-8, marked by TextNormalizer), so
 * only a `\uD800`–`\uDFFF` escape makes one: a record is searched only when its text (or, for a file
 * streamed into a parser, the file's bytes read so far) has such an escape.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { findText } from '../utf8-marks.js';

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a value cannot be taken because of a lone surrogate: the field (absent when a key holds it). */
export interface LoneSurrogateProblem {
  message: string;
  expected: string;
  field?: string;
}

/** A cheap look at a JSON text: false when no string of it can hold a lone surrogate. */
export function mayHoldLoneSurrogate(text: string): boolean {
  return text.includes('\\u') && SURROGATE_ESCAPE.test(text);
}

function loneSurrogateAt(text: string): { at: number; unit: number } | undefined {
  const m = LONE_SURROGATE.exec(text);
  return m ? { at: m.index + 1, unit: text.charCodeAt(m.index) } : undefined;
}

/** Why a parsed JSON record cannot be taken because a string of it holds a lone surrogate; undefined when none does. */
export function loneSurrogateIn(value: unknown, text: string): LoneSurrogateProblem | undefined {
  return mayHoldLoneSurrogate(text) ? loneSurrogateProblem(value) : undefined;
}

/** The first lone surrogate a parsed value holds, worded for a reject (call only when its text may hold one). */
export function loneSurrogateProblem(value: unknown): LoneSurrogateProblem | undefined {
  const found = findText(value, '', loneSurrogateAt);
  if (!found) return undefined;
  const where = found.inName ? `the field name ${JSON.stringify(found.field)}` : `field ${JSON.stringify(found.field)}`;
  const unit = `\\u${found.unit.toString(16).toUpperCase()}`;
  return {
    message: `${where} holds ${unit} at character ${found.at} without the other half of its surrogate pair: not a Unicode character, so UTF-8 (what the platform stores) cannot hold it`,
    expected: 'Unicode text (a \\uD800–\\uDFFF escape only as half of a pair)',
    ...(found.inName ? {} : { field: found.field }),
  };
}

const ESCAPE_LOWER = Buffer.from('\\ud');
const ESCAPE_UPPER = Buffer.from('\\uD');
const isSurrogateDigit = (b: number | undefined) => b !== undefined && ((b >= 0x38 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46));

function hasEscapeIn(bytes: Buffer, escape: Buffer): boolean {
  for (let i = bytes.indexOf(escape); i !== -1; i = bytes.indexOf(escape, i + 1)) if (isSurrogateDigit(bytes[i + 3])) return true;
  return false;
}

/** mayHoldLoneSurrogate on bytes: a `\uD800`–`\uDFFF` escape in JSON text. */
const hasSurrogateEscape = (bytes: Buffer) => hasEscapeIn(bytes, ESCAPE_LOWER) || hasEscapeIn(bytes, ESCAPE_UPPER);

/**
 * JSON bytes passed through unchanged on their way to a streaming parser, noting whether a surrogate escape
 * went by (`seen`): the parser emits a value only after its bytes went through, so a value emitted while
 * `seen` is false holds no lone surrogate and is not searched.
 */
export class SurrogateEscapeScan extends Transform {
  seen = false;
  /** The last bytes of the previous chunk: an escape may be split between two. */
  private tail = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.seen) {
      this.seen = hasSurrogateEscape(chunk) || hasSurrogateEscape(Buffer.concat([this.tail, chunk.subarray(0, 3)]));
      this.tail = Buffer.from(chunk.length >= 3 ? chunk.subarray(-3) : Buffer.concat([this.tail, chunk]).subarray(-3));
    }
    callback(null, chunk);
  }
}
