/**
 * A fast reading of the common messages import file, straight from the upload's bytes: the items' small
 * fields are decoded, while body, groupTag and properties stay JSON tokens in the bytes, later copied
 * into the message store as they are (message-table.ts). The general path decodes the whole file to text,
 * JSON.parse's it, checks each item and writes each message's variable part back as JSON: most of the
 * sandbox's CPU per imported item (BENCHMARKS.md, issue 12).
 *
 * It says yes only when the general path would read the same file to the same outcome: a JSON array of
 * objects each of which `surelyValidMessage` (fast-accept.ts) accepts, with values that read back from
 * the stored tokens exactly as the general path's re-written JSON would. Anything else (an unknown or
 * escaped or repeated item field, a key that is not plain ASCII, a channel id that is not a plain safe
 * integer, a number in properties that JSON would rewrite, a body longer in bytes than the limit in
 * characters, a byte outside JSON's grammar) gives `undefined`, and the general path reads the file with
 * its own answers and errors.
 */
import { LIMITS } from '../wire/imports.js';
import { keyHash } from '../shared/string-key-table.js';
import { lostInDouble } from '../shared/double-range.js';
import type { UploadedMessage } from './store.js';

/** One message item: decoded fields, and where its key, body, group tag and properties are in the upload. */
export interface ScannedMessage extends UploadedMessage {
  type: 'TEXT' | 'SYSTEM_TEXT';
  channelId: number;
  user: string | undefined;
}

/** A scanned upload: its bytes (the tokens point into them) and its items in file order. */
export interface ScannedUpload {
  bytes: Buffer;
  messages: ScannedMessage[];
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
/** Deeper properties are left to the general path (no recursion limit to reason about). */
const MOST_DEPTH = 64;

/** Item fields, by the byte length of their name and its bytes (names are ASCII, compared unescaped). */
const FIELDS = ['type', 'channelId', 'body', 'user', 'groupTag', 'properties', 'idempotencyKey'] as const;
type Field = (typeof FIELDS)[number];
const FIELD_BYTES = FIELDS.map((name) => Buffer.from(name));
/** The one field a name can be, by its length × 128 + its first byte (-1: none); its other bytes are then compared. */
const MOST_FIELD_LENGTH = 16;
const FIELD_BY_SHAPE = new Int8Array(MOST_FIELD_LENGTH * 128).fill(-1);
FIELD_BYTES.forEach((name, f) => (FIELD_BY_SHAPE[name.length * 128 + name[0]!] = f));
const TEXT_TOKEN = Buffer.from('"TEXT"');
const SYSTEM_TEXT_TOKEN = Buffer.from('"SYSTEM_TEXT"');
const TRUE_TOKEN = Buffer.from('true');
const FALSE_TOKEN = Buffer.from('false');
const NULL_TOKEN = Buffer.from('null');

/** Thrown inside the scanner for "not the common shape"; caught once, at the top. */
class NotCommon {}
const NOT_COMMON = new NotCommon();

/** The upload's message items, or undefined when the general path must read it. */
export function scanMessageUpload(bytes: Buffer): ScannedUpload | undefined {
  try {
    return { bytes, messages: new UploadScanner(bytes).items() };
  } catch (error) {
    if (error === NOT_COMMON) return undefined;
    throw error;
  }
}

class UploadScanner {
  private at = 0;
  /** Set by string(): whether the last string token held a backslash escape, and whether all its bytes were ASCII. */
  private escaped = false;
  private ascii = true;

  constructor(private readonly b: Buffer) {}

  items(): ScannedMessage[] {
    const out: ScannedMessage[] = [];
    this.space();
    this.expect(OPEN_BRACKET);
    this.space();
    if (this.b[this.at] === CLOSE_BRACKET) this.at++;
    else
      for (;;) {
        this.space();
        out.push(this.item());
        this.space();
        const c = this.b[this.at++];
        if (c === CLOSE_BRACKET) break;
        if (c !== COMMA) throw NOT_COMMON;
      }
    this.space();
    if (this.at !== this.b.length) throw NOT_COMMON;
    return out;
  }

  private item(): ScannedMessage {
    const m: ScannedMessage = { type: 'TEXT', channelId: 0, user: undefined, keyStart: -1, keyEnd: -1, keyHash: 0, bodyStart: -1, bodyEnd: -1, groupStart: -1, groupEnd: -1, propertiesStart: -1, propertiesEnd: -1 };
    let seen = 0;
    this.expect(OPEN_BRACE);
    this.space();
    if (this.b[this.at] === CLOSE_BRACE) throw NOT_COMMON; // no type: the general path says so
    for (;;) {
      this.space();
      const field = this.fieldName();
      const bit = 1 << field;
      if (seen & bit) throw NOT_COMMON; // JSON.parse keeps the last; leave repeats to it
      seen |= bit;
      this.space();
      this.expect(COLON);
      this.space();
      this.fieldValue(FIELDS[field]!, m);
      this.space();
      const c = this.b[this.at++];
      if (c === CLOSE_BRACE) break;
      if (c !== COMMA) throw NOT_COMMON;
    }
    // As surelyValidMessage: TEXT has a sender, SYSTEM_TEXT has none; channelId and body are required.
    const hasType = (seen & 1) !== 0;
    const hasChannel = (seen & 2) !== 0;
    if (!hasType || !hasChannel || m.bodyStart === -1) throw NOT_COMMON;
    if ((m.type === 'TEXT') !== (m.user !== undefined)) throw NOT_COMMON;
    return m;
  }

  private fieldName(): number {
    if (this.b[this.at] !== QUOTE) throw NOT_COMMON;
    const start = this.at + 1;
    const end = this.string() - 1;
    if (this.escaped) throw NOT_COMMON;
    const length = end - start;
    const f = length < MOST_FIELD_LENGTH ? FIELD_BY_SHAPE[length * 128 + (this.b[start]! & 0x7f)]! : -1;
    if (f === -1) throw NOT_COMMON;
    const name = FIELD_BYTES[f]!;
    for (let i = 0; i < length; i++) if (this.b[start + i] !== name[i]) throw NOT_COMMON; // from the first: the lookup took it to 7 bits
    return f;
  }

  private fieldValue(field: Field, m: ScannedMessage): void {
    const start = this.at;
    switch (field) {
      case 'type': {
        // The two spellings as plain tokens, compared without decoding; anything else is decoded.
        if (this.token(TEXT_TOKEN)) m.type = 'TEXT';
        else if (this.token(SYSTEM_TEXT_TOKEN)) m.type = 'SYSTEM_TEXT';
        else this.typeText(m);
        return;
      }
      case 'channelId':
        m.channelId = this.channelId();
        return;
      case 'body':
        // At most one UTF-16 unit per byte or escape, at least one for a non-empty token: the byte
        // count bounds the length in characters the limit is written in.
        this.nonEmptyToken(LIMITS.bodyLength);
        m.bodyStart = start;
        m.bodyEnd = this.at;
        return;
      case 'user':
        m.user = this.text(LIMITS.nameLength);
        return;
      case 'groupTag':
        this.nonEmptyToken(Infinity);
        m.groupStart = start;
        m.groupEnd = this.at;
        return;
      case 'properties':
        if (this.b[this.at] !== OPEN_BRACE) throw NOT_COMMON;
        this.value(0);
        m.propertiesStart = start;
        m.propertiesEnd = this.at;
        return;
      case 'idempotencyKey': {
        // Plain ASCII only: one byte a character, so the bytes are the key and its length is theirs, and
        // no other spelling of the same key (an escape) can slip past the file's own duplicate check.
        if (this.b[start] !== QUOTE) throw NOT_COMMON;
        const end = this.string();
        const length = end - start - 2;
        if (this.escaped || !this.ascii || length < 1 || length > LIMITS.idempotencyKeyLength) throw NOT_COMMON;
        m.keyStart = start + 1;
        m.keyEnd = end - 1;
        m.keyHash = keyHash(this.b, m.keyStart, m.keyEnd); // while its bytes are in the cache
        return;
      }
    }
  }

  private typeText(m: ScannedMessage): void {
    const text = this.text(Infinity);
    if (text !== 'TEXT' && text !== 'SYSTEM_TEXT') throw NOT_COMMON;
    m.type = text;
  }

  /** True, and moves past it, when the bytes at `at` are exactly `token`. */
  private token(token: Buffer): boolean {
    const b = this.b;
    const at = this.at;
    for (let i = 0; i < token.length; i++) if (b[at + i] !== token[i]) return false;
    this.at = at + token.length;
    return true;
  }

  /** A string token of 1 to `mostBytes` bytes between its quotes. */
  private nonEmptyToken(mostBytes: number): void {
    const start = this.at;
    if (this.b[start] !== QUOTE) throw NOT_COMMON;
    const inner = this.string() - start - 2;
    if (inner < 1 || inner > mostBytes) throw NOT_COMMON;
  }

  /** A string value decoded as JSON.parse of the whole text would give it, 1 to `most` characters long. */
  private text(most: number): string {
    const start = this.at;
    if (this.b[start] !== QUOTE) throw NOT_COMMON;
    const end = this.string();
    // Quotes are ASCII, so decoding this span alone gives what decoding the whole file gives here.
    const text = this.escaped ? (JSON.parse(this.b.toString('utf8', start, end)) as string) : this.b.toString('utf8', start + 1, end - 1);
    if (text.length < 1 || text.length > most) throw NOT_COMMON;
    return text;
  }

  /** A positive safe integer written as plain digits (anything else is the general path's). */
  private channelId(): number {
    const b = this.b;
    const start = this.at;
    let value = 0;
    let i = start;
    if (b[i] === 0x30) throw NOT_COMMON;
    for (let c = b[i]!; c >= 0x30 && c <= 0x39; c = b[++i]!) value = value * 10 + (c - 0x30);
    const digits = i - start;
    if (digits === 0 || digits > 16 || !Number.isSafeInteger(value)) throw NOT_COMMON;
    const next = b[i];
    if (next === 0x2e || next === 0x65 || next === 0x45) throw NOT_COMMON; // 1.0 or 1e2
    this.at = i;
    return value;
  }

  /** Any JSON value (inside properties); checks the grammar as JSON.parse would. */
  private value(depth: number): void {
    if (depth > MOST_DEPTH) throw NOT_COMMON;
    const b = this.b;
    const c = b[this.at];
    if (c === OPEN_BRACE) {
      this.at++;
      this.space();
      if (b[this.at] === CLOSE_BRACE) {
        this.at++;
        return;
      }
      for (;;) {
        this.space();
        if (b[this.at] !== QUOTE) throw NOT_COMMON;
        this.string();
        this.space();
        this.expect(COLON);
        this.space();
        this.value(depth + 1);
        this.space();
        const next = b[this.at++];
        if (next === CLOSE_BRACE) return;
        if (next !== COMMA) throw NOT_COMMON;
      }
    }
    if (c === OPEN_BRACKET) {
      this.at++;
      this.space();
      if (b[this.at] === CLOSE_BRACKET) {
        this.at++;
        return;
      }
      for (;;) {
        this.space();
        this.value(depth + 1);
        this.space();
        const next = b[this.at++];
        if (next === CLOSE_BRACKET) return;
        if (next !== COMMA) throw NOT_COMMON;
      }
    }
    if (c === QUOTE) {
      this.string();
      return;
    }
    const literal = c === 0x74 /* t */ ? TRUE_TOKEN : c === 0x66 /* f */ ? FALSE_TOKEN : c === 0x6e /* n */ ? NULL_TOKEN : undefined;
    if (literal !== undefined) {
      if (!this.token(literal)) throw NOT_COMMON;
      return;
    }
    this.number();
  }

  /**
   * A number token of JSON's grammar. Stored as written, it reads back as the general path's rewritten
   * JSON does for integers (any length: exact both ways) and for other finite values below 1e15; -0 and
   * values JSON.stringify would print with 16 or more integer digits, and non-zero texts a double holds as 0,
   * are left to the general path.
   */
  private number(): void {
    const b = this.b;
    const start = this.at;
    let i = start;
    if (b[i] === MINUS) i++;
    if (b[i] === 0x30) i++;
    else if (b[i]! >= 0x31 && b[i]! <= 0x39) while (b[i]! >= 0x30 && b[i]! <= 0x39) i++;
    else throw NOT_COMMON;
    let integer = true;
    if (b[i] === 0x2e) {
      integer = false;
      i = this.digits(i + 1);
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      integer = false;
      i++;
      if (b[i] === 0x2b || b[i] === MINUS) i++;
      i = this.digits(i);
    }
    this.at = i;
    if (integer) {
      if (b[start] === MINUS && b[start + 1] === 0x30) throw NOT_COMMON; // -0
      return;
    }
    const token = b.toString('latin1', start, i);
    const value = Number(token);
    // 1e-400 reads as 0: a number a double cannot hold, which the general path refuses (import-validate.ts).
    if (Object.is(value, -0) || !(Math.abs(value) < 1e15) || lostInDouble(token, value)) throw NOT_COMMON;
  }

  /** One or more digits from `i`; returns the index after them. */
  private digits(i: number): number {
    const b = this.b;
    const start = i;
    while (b[i]! >= 0x30 && b[i]! <= 0x39) i++;
    if (i === start) throw NOT_COMMON;
    return i;
  }

  /**
   * A string token at `at` (a quote); moves past it and returns its end. Checks escapes and refuses raw
   * control characters as JSON does. Bytes of 0x80 and above are taken as they are: a UTF-8 decoder never
   * swallows an ASCII byte into a bad sequence, so the token's end is where JSON.parse of the text ends it.
   */
  private string(): number {
    const b = this.b;
    let i = this.at + 1;
    let escaped = false;
    let high = 0;
    for (;;) {
      const c = b[i];
      if (c === QUOTE) break;
      if (c === undefined || c < 0x20) throw NOT_COMMON;
      high |= c & 0x80;
      if (c === BACKSLASH) {
        escaped = true;
        const e = b[i + 1];
        if (e === 0x75 /* u */) {
          for (let h = i + 2; h < i + 6; h++) if (!isHex(b[h])) throw NOT_COMMON;
          i += 6;
        } else if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2;
        else throw NOT_COMMON;
      } else i++;
    }
    this.escaped = escaped;
    this.ascii = high === 0;
    this.at = i + 1;
    return this.at;
  }

  private space(): void {
    const b = this.b;
    // Most calls find no space: one comparison says so (every JSON space byte is at most 0x20).
    if (b[this.at]! > 0x20) return;
    for (let c = b[this.at]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = b[++this.at]);
  }

  private expect(byte: number): void {
    if (this.b[this.at] !== byte) throw NOT_COMMON;
    this.at++;
  }
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66));
}
