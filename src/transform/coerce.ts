import { parseJsonNoting, type ParsedJson } from '../shared/lossless-json.js';
import { jsonRecordProblem } from '../shared/json-checks/json-record.js';
import { arrivesAs, DOUBLE_RANGE, lostInDouble } from '../shared/double-range.js';
import { reason } from './types.js';
import type { Reason } from './types.js';
import type { ValueType } from './mapping-spec.js';
import { isoOfEpochMs } from '../shared/iso-time.js';
import { daysInMonth } from '../shared/calendar.js';
import { wholeNumberText } from './whole-number-text.js';

/** Returned by a coercion that failed; the reason is already in the list. */
export const BAD: unique symbol = Symbol('bad value');
export type Bad = typeof BAD;

export type Coercer = (value: unknown, reasons: Reason[], field: string, source: string | undefined) => unknown;

export const EXPECTED: Record<ValueType, string> = {
  string: 'text',
  number: 'a number (e.g. 42, -1.5, 1e3)',
  integer: 'a whole number',
  boolean: 'a boolean (true/false, yes/no, y/n, 1/0, on/off)',
  date: 'a date (ISO 8601, e.g. 2024-01-31 or 2024-01-31T12:00:00Z; or epoch milliseconds: a whole number of 12 or 13 digits, as a number or as text; not epoch seconds or microseconds)',
  json: 'JSON text',
};

const TRUE = new Set(['true', 't', 'yes', 'y', '1', 'on']);
const FALSE = new Set(['false', 'f', 'no', 'n', '0', 'off']);
const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
// Date, optional time, optional zone. Without a zone the time is taken as UTC, so the result never
// depends on the machine's time zone.
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function bad(reasons: Reason[], type: ValueType, field: string, value: unknown, source: string | undefined): Bad {
  reasons.push(reason(field, EXPECTED[type], value, source));
  return BAD;
}

function toBoolean(value: unknown, reasons: Reason[], field: string, source: string | undefined): unknown {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (TRUE.has(text)) return true;
    if (FALSE.has(text)) return false;
    // A flag column holding blanks, as pandas and spreadsheets write it: 1.0, 0.0 (a JSON 1.0 is 1 already).
    const whole = wholeNumberText(text);
    if (whole === '1' || whole === '0') return whole === '1';
  }
  if (value === 1) return true;
  if (value === 0) return false;
  if (typeof value === 'bigint') return toBoolean(String(value), reasons, field, source);
  return bad(reasons, 'boolean', field, value, source);
}

function toNumber(value: unknown, reasons: Reason[], field: string, source: string | undefined): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const text = value.trim();
    if (NUMBER_TEXT.test(text)) {
      const n = Number(text);
      // Rounding to the nearest double is a number's nature; becoming 0 or Infinity (null) is not.
      const lost = lostInDouble(text, n);
      if (lost !== undefined) {
        reasons.push(reason(field, `a number a double holds (${DOUBLE_RANGE}; this one would arrive as ${arrivesAs(lost)}): map this field with type string to keep its text`, value, source));
        return BAD;
      }
      // A fraction rounds to the nearest double, as any float (and so does 1.5e308, written as a float); a
      // whole number written in digits becoming another one (an id of 17 digits) is another id, refused.
      if (Math.abs(n) <= Number.MAX_SAFE_INTEGER || !WHOLE_DIGITS.test(text) || keepsWholeNumber(text, n)) return n;
      reasons.push(reason(field, `a whole number a double holds (within ±${Number.MAX_SAFE_INTEGER}, or one such as 100000000000000000000 that a double holds exactly; this one would arrive as ${String(n)}): map this field with type string to keep its digits`, value, source));
      return BAD;
    }
  }
  if (typeof value === 'bigint') return toNumber(String(value), reasons, field, source);
  return bad(reasons, 'number', field, value, source);
}

const NUMBER_PARTS = /^([+-]?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/;

/**
 * The whole number a number text denotes exactly (`42`, `1.0`, `1e3`, `150e-1`): undefined when it denotes
 * none (`4.5`, `1.00000000000000001`, which Number() would round to 1), 'beyond' past ±(2^53 − 1).
 */
function wholeNumberOf(text: string): number | 'beyond' | undefined {
  const [, sign, whole = '', fraction = '', exponent = '0'] = NUMBER_PARTS.exec(text) ?? [];
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return 0;
  const significant = digits.replace(/0+$/, '');
  // The value is significant × 10^scale: whole exactly when scale ≥ 0.
  const scale = Number(exponent) - fraction.length + (digits.length - significant.length);
  if (scale < 0) return undefined;
  if (significant.length + scale > 16) return 'beyond';
  const n = Number(`${sign}${significant}${'0'.repeat(scale)}`);
  return Number.isSafeInteger(n) ? n : 'beyond';
}

/** A whole number written in digits, as ids are (`12345678901234567`, `-42.00`): no exponent, no fraction but zeros. */
const WHOLE_DIGITS = /^[+-]?\d+(?:\.0*)?$/;

/** Whether the double `n` read from a WHOLE_DIGITS text is exactly the text's value. */
const keepsWholeNumber = (text: string, n: number): boolean => BigInt(text.replace(/\..*$/, '')) === BigInt(n);

function toInteger(value: unknown, reasons: Reason[], field: string, source: string | undefined): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  // A JSON number past 2^53 that JSON.parse took as a double (`1e20`) is whole, but beyond the safe range.
  const whole = typeof value === 'string' && NUMBER_TEXT.test(value.trim()) ? wholeNumberOf(value.trim()) : typeof value === 'number' && Number.isInteger(value) ? 'beyond' : undefined;
  if (typeof whole === 'number') return whole;
  // Never rounded: an integer beyond 2^53 (JSON sources read it exactly) is refused, naming why.
  if (whole === 'beyond') {
    reasons.push(reason(field, `${EXPECTED.integer} within ±${Number.MAX_SAFE_INTEGER} (larger ones are exact only as text: map this field with type string)`, value, source));
    return BAD;
  }
  if (typeof value === 'bigint') return toInteger(String(value), reasons, field, source);
  return bad(reasons, 'integer', field, value, source);
}

/**
 * Epoch milliseconds, as text (a CSV cell) or as a JSON number: 12 or 13 digits, so 1973 to 2286 (and 1653 to
 * 1966 negative). Fewer digits are refused: `1700000000` is more likely seconds, and `2024` a year; taken as
 * milliseconds they would land in January 1970 without a word. More are refused too: `1700000000123456` is
 * epoch microseconds, which as milliseconds would be the year 55841.
 */
const EPOCH_MS_TEXT = /^-?\d{12,13}$/;

/** The common case, already UTC with seconds: parsed without taking the text apart. */
const UTC_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** `YYYY-MM-DDTHH:MM:SS.sssZ`, exactly what `toISOString()` gives: returned as it is once its fields are in range. */
const ISO_TEXT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const two = (s: string, at: number) => (s.charCodeAt(at) - 48) * 10 + s.charCodeAt(at + 1) - 48;

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the times an ISO text with a four-digit year can write. */
const FIRST_YYYY_MS = -62_167_219_200_000;
const PAST_YYYY_MS = 253_402_300_800_000;

function isCanonicalIsoInRange(text: string): boolean {
  const year = Number(text.slice(0, 4));
  const month = two(text, 5);
  const day = two(text, 8);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && two(text, 11) < 24 && two(text, 14) < 60 && two(text, 17) < 60;
}

function toDate(value: unknown, reasons: Reason[], field: string, source: string | undefined): unknown {
  let ms = NaN;
  // Fraction digits past milliseconds, which a Date cannot hold: written after its milliseconds.
  let finer = '';
  // The commonest input of all (what most exporters write) needs no parsing and formatting again.
  if (typeof value === 'string' && ISO_TEXT.test(value) && isCanonicalIsoInRange(value)) return value;
  if (typeof value === 'string' && UTC_TEXT.test(value)) {
    // Seconds and up to three digits of fraction: the canonical form is this text, padded.
    const canonical = value.length === 20 ? `${value.slice(0, 19)}.000Z` : `${value.slice(0, 20)}${value.slice(20, -1).padEnd(3, '0')}Z`;
    if (isCanonicalIsoInRange(canonical)) return canonical;
    const date = new Date(value);
    // Date rolls 2024-02-31 over to March; equal days means the date exists.
    if (date.getUTCDate() === Number(value.slice(8, 10))) return date.toISOString();
  }
  // A fraction of a millisecond would be cut by Date: refused instead.
  if (typeof value === 'number') ms = Number.isInteger(value) && EPOCH_MS_TEXT.test(String(value)) ? value : NaN;
  else if (typeof value === 'string' && EPOCH_MS_TEXT.test(value.trim())) ms = Number(value.trim());
  else if (typeof value === 'string') {
    const m = DATE_TEXT.exec(value.trim());
    if (m) {
      const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
      // Date.parse rolls 2024-02-31 over to March; a day that does not exist is an error instead, saying so.
      // (Not through Date.UTC, which reads the years 0 to 99 as 1900 to 1999: 0000-02-29 exists, 1900-02-29 does not.)
      const month = Number(mo);
      if (month >= 1 && month <= 12 && Number(d) > daysInMonth(Number(y), month)) {
        reasons.push(reason(field, `a day that exists (${MONTH_NAMES[month - 1]} ${y} has ${daysInMonth(Number(y), month)} days)`, value, source));
        return BAD;
      }
      ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
      // Zones shift whole minutes, so the digits past milliseconds stay as written (trailing zeros aside).
      finer = frac.slice(4).replace(/0+$/, '');
    }
  }
  if (Number.isFinite(ms) && (ms < FIRST_YYYY_MS || ms >= PAST_YYYY_MS)) {
    // A zone can carry 0000-01-01 or 9999-12-31 out of the years YYYY writes; the ISO text would be ±YYYYYY.
    reasons.push(reason(field, `a time that in UTC falls in the years 0000 to 9999 (timestamps are written YYYY-MM-DDTHH:MM:SSZ; this one is ${isoOfEpochMs(ms)})`, value, source));
    return BAD;
  }
  if (Number.isFinite(ms)) return finer === '' ? isoOfEpochMs(ms) : `${isoOfEpochMs(ms).slice(0, -1)}${finer}Z`;
  if (typeof value === 'bigint') return toDate(String(value), reasons, field, source);
  return bad(reasons, 'date', field, value, source);
}

function toText(value: unknown, reasons: Reason[], field: string, source: string | undefined): unknown {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return bad(reasons, 'string', field, value, source);
}

/**
 * JSON text in a field (a CSV cell) → its value, held to the rules of a JSON record: a key written twice,
 * a number no double holds or a lone surrogate would reach the platform changed (one value dropped, null,
 * U+FFFD), so the value is refused, naming the problem.
 */
function fromJson(value: unknown, reasons: Reason[], field: string, source: string | undefined): unknown {
  if (typeof value !== 'string') return value;
  let parsed: ParsedJson;
  try {
    // A number stays a number: an integer beyond 2^53 as a bigint, written back as its bare digits.
    parsed = parseJsonNoting(value, 'bigint');
  } catch {
    return bad(reasons, 'json', field, value, source);
  }
  const problem = jsonRecordProblem(parsed, value);
  if (problem === undefined) return parsed.value;
  reasons.push(reason(field, `${EXPECTED.json} with ${problem.expected} (${problem.message})`, value, source));
  return BAD;
}

export const COERCERS: Record<ValueType, Coercer> = {
  string: toText,
  number: toNumber,
  integer: toInteger,
  boolean: toBoolean,
  date: toDate,
  json: fromJson,
};
