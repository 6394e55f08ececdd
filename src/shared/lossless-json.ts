/**
 * JSON without losing integers beyond 2^53. JSON.parse turns 9007199254740993 into 9007199254740992, so two
 * snowflake ids can become one; Node 20 has no JSON.rawJSON or reviver source text to prevent it. Here an
 * integer token that is not a safe integer comes out as a bigint (wire ids, see int64.ts; the import's source
 * records, whose numbers stay numbers) or as its exact decimal text (parseRecords' default), and a bigint is
 * written back as bare digits.
 *
 * Fast path first: JSON.parse, then a walk over the numbers it gave. A token JSON.parse rounded away from an
 * integer comes out as an integer beyond the safe range or as Infinity (a safe integer has at most 16
 * digits and stays exact), so a value with neither is JSON.parse's, unchanged. Only other texts are read
 * again by the exact reader, after JSON.parse has checked them, so both paths accept and refuse exactly the
 * same texts with the same errors. (The walk replaced a regex over the text: it costs a tenth as much.)
 */

/** How an integer beyond the safe range comes out: a bigint, or its decimal text. */
export type BigIntegers = 'bigint' | 'text';

/**
 * How a number token with a fraction or an exponent comes out: the double JSON.parse gives, or (a value of
 * the top-level object) its source text exactly: a double rounds 3.14159265358979323846 and rewrites 1.50
 * as 1.5 and 1e3 as 1000.
 */
export type Decimals = 'number' | 'text';

const INTEGER_TOKEN = /^-?\d+$/;
/**
 * A value starting with digits and then a fraction or an exponent: every such number token matches (a
 * value follows `:`, `[`, `,` or the start), and so may text inside a string, which only costs the exact
 * reader. Timestamps' `10:00:00.5` do not: their colons follow digits.
 */
const MAY_BE_DECIMAL = /(?:^|["\s]:|[[,])\s*-?\d+[.eE]/;

/** A number JSON.parse may have rounded from a longer integer token. */
const MAY_BE_ROUNDED = 1;
/** A zero or an infinity: its token may be one a double cannot hold (number-range.ts). */
const MAY_BE_EXTREME = 2;

function doubtOf(n: number): number {
  if (n === 0) return MAY_BE_EXTREME;
  if (!Number.isFinite(n)) return MAY_BE_ROUNDED | MAY_BE_EXTREME;
  return Number.isInteger(n) && !Number.isSafeInteger(n) ? MAY_BE_ROUNDED : 0;
}

/**
 * The doubts every number of a parsed value raises, and how many keys its objects hold in all (a loop
 * with its own stack: no depth limit).
 */
function scanParsed(value: unknown): { doubts: number; keys: number } {
  if (typeof value === 'number') return { doubts: doubtOf(value), keys: 0 };
  if (value === null || typeof value !== 'object') return { doubts: 0, keys: 0 };
  let doubts = 0;
  let keys = 0;
  const stack: object[] = [value];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    let values: unknown[];
    if (Array.isArray(next)) values = next;
    else {
      values = Object.values(next);
      keys += values.length;
    }
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === 'number') doubts |= doubtOf(v);
      else if (v !== null && typeof v === 'object') stack.push(v);
    }
  }
  return { doubts, keys };
}

/**
 * A parsed JSON text, whether a number in it may be one a double cannot hold (see number-range.ts), and
 * how many keys its objects hold in all (fewer than the text names when a key repeats in an object).
 */
export interface ParsedJson {
  value: unknown;
  mayHoldExtremeNumber: boolean;
  keyCount: number;
}

/** parseJsonExact, telling also whether the text may hold a number beyond a double's range, and its key count. */
export function parseJsonNoting(text: string, bigIntegers: BigIntegers, decimals: Decimals = 'number'): ParsedJson {
  const parsed: unknown = JSON.parse(text);
  const { doubts, keys } = scanParsed(parsed);
  const exact = (doubts & MAY_BE_ROUNDED) !== 0 || (decimals === 'text' && MAY_BE_DECIMAL.test(text));
  const value = exact ? new ExactReader(text, bigIntegers, decimals).document() : parsed;
  return { value, mayHoldExtremeNumber: (doubts & MAY_BE_EXTREME) !== 0, keyCount: keys };
}

/** JSON.parse, except that integers beyond ±(2^53 − 1) keep their exact value (see BigIntegers). */
export function parseJsonExact(text: string, bigIntegers: BigIntegers): unknown {
  return parseJsonNoting(text, bigIntegers).value;
}

/**
 * JSON.stringify (with the same `space`), except that a bigint is written as its digits instead of throwing.
 * Values without bigints take JSON.stringify itself.
 */
export function stringifyJson(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (error) {
    if (!(error instanceof TypeError) || !error.message.includes('BigInt')) throw error;
    return writeValue(value, '', '', space ? ' '.repeat(space) : '') ?? 'null';
  }
}

/**
 * Whether two values are the same JSON on the wire: equal once each is written by stringifyJson and read back
 * by parseJsonExact(…, 'bigint'), as the platform's answers are read. So -0 equals 0 (JSON writes 0), the
 * double 123456789012345680 equals the bigint the platform's copy of it reads back as, and neither object key
 * order nor keys holding undefined matter; 1 and "1", or integers differing in a digit, still differ. Leaves
 * are read again through JSON only when they differ and one is a number or bigint: verification's alignment
 * compares many pairs.
 */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' || typeof a === 'bigint' || typeof b === 'number' || typeof b === 'bigint') return asSent(a) === asSent(b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    // JSON writes undefined in an array as null.
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJsonValue(v ?? null, b[i] ?? null));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const k in y) if (Object.hasOwn(y, k) && y[k] !== undefined) count++;
  for (const k in x) {
    if (!Object.hasOwn(x, k) || x[k] === undefined) continue;
    if (!Object.hasOwn(y, k) || !sameJsonValue(x[k], y[k])) return false;
    count--;
  }
  return count === 0;
}

/** A leaf as the other side reads it after the wire (undefined, NaN and infinities become null). */
function asSent(leaf: unknown): unknown {
  return parseJsonExact((stringifyJson(leaf) as string | undefined) ?? 'null', 'bigint');
}

/** One value as JSON.stringify writes it (undefined for what it leaves out), bigints as digits. */
function writeValue(value: unknown, key: string, indent: string, gap: string): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = indent + gap;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    value.forEach((v, i) => parts.push(writeValue(v, String(i), inner, gap) ?? 'null'));
    return wrap('[', parts, ']', indent, inner, gap);
  }
  for (const k of Object.keys(value)) {
    const text = writeValue((value as Record<string, unknown>)[k], k, inner, gap);
    if (text !== undefined) parts.push(`${JSON.stringify(k)}:${gap ? ' ' : ''}${text}`);
  }
  return wrap('{', parts, '}', indent, inner, gap);
}

function wrap(open: string, parts: string[], close: string, indent: string, inner: string, gap: string): string {
  if (parts.length === 0) return open + close;
  if (!gap) return open + parts.join(',') + close;
  return `${open}\n${inner}${parts.join(`,\n${inner}`)}\n${indent}${close}`;
}

/**
 * Reads a JSON text already known to be valid (JSON.parse accepted it), so it checks nothing: it only
 * builds the value, with exact big integers.
 */
class ExactReader {
  private at = 0;
  /** How many objects and arrays enclose the value being read. */
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly bigIntegers: BigIntegers,
    private readonly decimals: Decimals = 'number',
  ) {}

  document(): unknown {
    return this.value();
  }

  private space(): void {
    const t = this.text;
    for (let c = t.charCodeAt(this.at); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = t.charCodeAt(++this.at));
  }

  private value(): unknown {
    this.space();
    switch (this.text.charCodeAt(this.at)) {
      case 0x7b /* { */:
        return this.object();
      case 0x5b /* [ */:
        return this.array();
      case 0x22 /* " */:
        return this.string();
      case 0x74 /* t */:
        this.at += 4;
        return true;
      case 0x66 /* f */:
        this.at += 5;
        return false;
      case 0x6e /* n */:
        this.at += 4;
        return null;
      default:
        return this.number();
    }
  }

  private object(): Record<string, unknown> {
    this.depth++;
    const out = this.members();
    this.depth--;
    return out;
  }

  private members(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.at++;
    this.space();
    if (this.text.charCodeAt(this.at) === 0x7d) {
      this.at++;
      return out;
    }
    for (;;) {
      this.space();
      const key = this.string();
      this.space();
      this.at++; // ':'
      const value = this.value();
      // As JSON.parse: "__proto__" is an own property, never the prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
      else out[key] = value;
      this.space();
      if (this.text.charCodeAt(this.at++) === 0x7d) return out;
    }
  }

  private array(): unknown[] {
    this.depth++;
    const out = this.elements();
    this.depth--;
    return out;
  }

  private elements(): unknown[] {
    const out: unknown[] = [];
    this.at++;
    this.space();
    if (this.text.charCodeAt(this.at) === 0x5d) {
      this.at++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.space();
      if (this.text.charCodeAt(this.at++) === 0x5d) return out;
    }
  }

  private string(): string {
    const t = this.text;
    const start = this.at;
    let escaped = false;
    let i = start + 1;
    for (let c = t.charCodeAt(i); c !== 0x22; c = t.charCodeAt(i)) {
      if (c === 0x5c) {
        escaped = true;
        i += 2;
      } else i++;
    }
    this.at = i + 1;
    return escaped ? (JSON.parse(t.slice(start, i + 1)) as string) : t.slice(start + 1, i);
  }

  private number(): unknown {
    const t = this.text;
    const start = this.at;
    let i = start;
    for (let c = t.charCodeAt(i); (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45; c = t.charCodeAt(++i));
    this.at = i;
    const token = t.slice(start, i);
    const n = Number(token);
    // Only a record's own values: text nested deeper would be written back as a JSON string, not a number.
    if (!INTEGER_TOKEN.test(token)) return this.decimals === 'text' && this.depth === 1 ? token : n;
    if (Number.isSafeInteger(n)) return n;
    return this.bigIntegers === 'bigint' ? BigInt(token) : token;
  }
}
