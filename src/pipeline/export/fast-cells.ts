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

/** Two or four digits at `at`, or NaN. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    value = value * 10 + d;
  }
  return value;
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

/** fastTimestampMicros of `text.slice(s, end)`, read in place. */
export function fastTimestampMicrosIn(text: string, s: number, end: number): number {
  const length = end - s;
  if (length < SECONDS_END + 1 || text.charCodeAt(end - 1) !== 90 /* Z */) return NaN;
  if (text.charCodeAt(s + 4) !== 45 || text.charCodeAt(s + 7) !== 45 || text.charCodeAt(s + 10) !== 84 /* T */ || text.charCodeAt(s + 13) !== 58 || text.charCodeAt(s + 16) !== 58) return NaN;
  const year = digitsAt(text, s, 4);
  const month = digitsAt(text, s + 5, 2);
  const day = digitsAt(text, s + 8, 2);
  const hour = digitsAt(text, s + 11, 2);
  const minute = digitsAt(text, s + 14, 2);
  const second = digitsAt(text, s + 17, 2);
  // NaN fails every comparison, so a non-digit anywhere ends here too.
  if (!isCivilDateTime(year, month, day, hour, minute, second)) return NaN;
  let fraction = 0;
  if (length > SECONDS_END + 1) {
    const fractionDigits = length - SECONDS_END - 2;
    if (text.charCodeAt(s + SECONDS_END) !== 46 /* . */ || fractionDigits < 1 || fractionDigits > 9) return NaN;
    const kept = Math.min(fractionDigits, 6);
    fraction = digitsAt(text, s + SECONDS_END + 1, kept) * MICROS_PER_FRACTION_UNIT[kept]!;
    if (fractionDigits > kept && Number.isNaN(digitsAt(text, s + SECONDS_END + 1 + kept, fractionDigits - kept))) return NaN;
    if (Number.isNaN(fraction)) return NaN;
  }
  const micros = ((daysFromCivil(year, month, day) * 24 + hour) * 3600 + minute * 60 + second) * 1_000_000 + fraction;
  return Number.isSafeInteger(micros) ? micros : NaN;
}

/** Epoch microseconds (a safe integer) → epoch milliseconds, floored as toEpochInUnit does (before 1970 too). */
export function microsToMillis(micros: number): number {
  const rest = micros % 1000;
  // micros - rest is a multiple of 1000, so the division is exact.
  return (micros - rest) / 1000 - (rest < 0 ? 1 : 0);
}
