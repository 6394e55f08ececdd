/**
 * Hand-written readers for the common shapes of exported text (plain integers, `…T…Z` timestamps, `true`
 * and `false`), without a regex, a Date or a BigInt per value. Each takes only a strict subset of what
 * parse-cell.ts accepts and gives the same value for it; anything else gives NaN (or undefined), and the
 * caller asks parse-cell.ts, which stays the one judge of what a value means and why it is refused.
 */
import { daysFromCivil, isCivilDateTime } from '../../shared/calendar.js';

/** More digits than this might not be a safe integer. */
const MAX_FAST_DIGITS = 15;

/** `[+-]digits`, at most 15 digits (so always a safe integer); NaN for anything else. */
export function fastInteger(text: string): number {
  return fastIntegerIn(text, 0, text.length);
}

/** fastInteger of `text.slice(start, end)`, read in place (no string made for it). */
export function fastIntegerIn(text: string, start: number, end: number): number {
  const length = end;
  let i = start;
  let negative = false;
  const sign = text.charCodeAt(start);
  if (sign === 45 /* - */ || sign === 43 /* + */) {
    negative = sign === 45;
    i = start + 1;
  }
  const digits = length - i;
  if (digits < 1 || digits > MAX_FAST_DIGITS) return NaN;
  let value = 0;
  for (; i < length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    value = value * 10 + d;
  }
  return negative ? -value : value;
}

/** `true`/`1` and `false`/`0` as written; undefined for anything else (other cases, spaces). */
export function fastBoolean(text: string): boolean | undefined {
  return fastBooleanIn(text, 0, text.length);
}

/** fastBoolean of `text.slice(start, end)`, read in place. */
export function fastBooleanIn(text: string, start: number, end: number): boolean | undefined {
  const length = end - start;
  if (length === 1) {
    const c = text.charCodeAt(start);
    return c === 49 /* 1 */ ? true : c === 48 /* 0 */ ? false : undefined;
  }
  if (length === 4 && text.startsWith('true', start)) return true;
  if (length === 5 && text.startsWith('false', start)) return false;
  return undefined;
}

/** Microseconds in one unit of a fraction of n digits (n ≤ 6): a table, not `10 ** (6 - n)`, a Math.pow call per value. */
const MICROS_PER_FRACTION_UNIT = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];
/** `YYYY-MM-DDTHH:MM:SS` is 19 characters. */
const SECONDS_END = 19;

/**
 * `YYYY-MM-DDTHH:MM:SS[.f…]Z` (1 to 9 fraction digits, those past the microsecond dropped, as parseTimestamp
 * does) → epoch microseconds as a safe integer; NaN for any other shape, an impossible date or time, year 0
 * (which parseTimestamp refuses) or an instant too far out for a safe integer (before 1685, after 2254).
 */
export function fastTimestampMicros(text: string): number {
  return fastTimestampMicrosIn(text, 0, text.length);
}

/** The character at `at` less '0': a digit's value, or outside 0–9 for any other character. */
function digitAt(text: string, at: number): number {
  return text.charCodeAt(at) - 48;
}

/** Negative unless `d` is 0–9: an OR of these over many digits tests them all with one branch. */
function outsideDigits(d: number): number {
  return d | (9 - d);
}

// The last date fastTimestampMicrosIn read and its day number: a column's timestamps mostly share their date,
// so its check and days_from_civil are done once per date, not per value.
let lastDateKey = -1;
let lastDateDays = 0;

/** Day number of a date whose digits were read, or NaN for an impossible date or year 0. */
function daysOfDate(year: number, month: number, day: number): number {
  const key = (year * 100 + month) * 100 + day;
  if (key === lastDateKey) return lastDateDays;
  if (!isCivilDateTime(year, month, day, 0, 0, 0)) return NaN;
  lastDateKey = key;
  lastDateDays = daysFromCivil(year, month, day);
  return lastDateDays;
}

/**
 * fastTimestampMicros of `text.slice(s, end)`, read in place: the 14 digits and 5 separators of
 * `YYYY-MM-DDTHH:MM:SS` at their fixed places, then the fraction.
 */
export function fastTimestampMicrosIn(text: string, s: number, end: number): number {
  const length = end - s;
  if (length < SECONDS_END + 1 || text.charCodeAt(end - 1) !== 90 /* Z */) return NaN;
  if (text.charCodeAt(s + 4) !== 45 || text.charCodeAt(s + 7) !== 45 || text.charCodeAt(s + 10) !== 84 /* T */ || text.charCodeAt(s + 13) !== 58 || text.charCodeAt(s + 16) !== 58) return NaN;
  const y0 = digitAt(text, s), y1 = digitAt(text, s + 1), y2 = digitAt(text, s + 2), y3 = digitAt(text, s + 3);
  const mo0 = digitAt(text, s + 5), mo1 = digitAt(text, s + 6), d0 = digitAt(text, s + 8), d1 = digitAt(text, s + 9);
  const h0 = digitAt(text, s + 11), h1 = digitAt(text, s + 12), mi0 = digitAt(text, s + 14), mi1 = digitAt(text, s + 15);
  const s0 = digitAt(text, s + 17), s1 = digitAt(text, s + 18);
  const dateOutside = outsideDigits(y0) | outsideDigits(y1) | outsideDigits(y2) | outsideDigits(y3) | outsideDigits(mo0) | outsideDigits(mo1) | outsideDigits(d0) | outsideDigits(d1);
  if ((dateOutside | outsideDigits(h0) | outsideDigits(h1) | outsideDigits(mi0) | outsideDigits(mi1) | outsideDigits(s0) | outsideDigits(s1)) < 0) return NaN;
  const hour = h0 * 10 + h1;
  const minute = mi0 * 10 + mi1;
  const second = s0 * 10 + s1;
  if (hour > 23 || minute > 59 || second > 59) return NaN;
  // NaN fails the safe-integer test at the end, so an impossible date ends there.
  const days = daysOfDate(y0 * 1000 + y1 * 100 + y2 * 10 + y3, mo0 * 10 + mo1, d0 * 10 + d1);
  let fraction = 0;
  if (length > SECONDS_END + 1) {
    fraction = fractionMicros(text, s + SECONDS_END, end - 1);
    if (Number.isNaN(fraction)) return NaN;
  }
  const micros = ((days * 24 + hour) * 3600 + minute * 60 + second) * 1_000_000 + fraction;
  return Number.isSafeInteger(micros) ? micros : NaN;
}

/** `.f…` from `dot` to `end` (1 to 9 digits) → microseconds, those past the sixth dropped; NaN for any other shape. */
function fractionMicros(text: string, dot: number, end: number): number {
  const fractionDigits = end - dot - 1;
  if (text.charCodeAt(dot) !== 46 /* . */ || fractionDigits < 1 || fractionDigits > 9) return NaN;
  let value = 0;
  let bad = 0;
  for (let i = dot + 1; i < end; i++) {
    const d = digitAt(text, i);
    bad |= outsideDigits(d);
    if (i <= dot + 6) value = value * 10 + d;
  }
  return bad < 0 ? NaN : value * MICROS_PER_FRACTION_UNIT[Math.min(fractionDigits, 6)]!;
}

/** Epoch microseconds (a safe integer) → epoch milliseconds, floored as toEpochInUnit does (before 1970 too). */
export function microsToMillis(micros: number): number {
  const rest = micros % 1000;
  // micros - rest is a multiple of 1000, so the division is exact.
  return (micros - rest) / 1000 - (rest < 0 ? 1 : 0);
}
