/**
 * Reads one exported value as its declared type. Pure. The export is CSV by decision, so most values
 * arrive as text; NDJSON or JSON-array exports may carry numbers and booleans natively, and both are read.
 *
 * Nulls: `null`, a missing value and the empty string are all null. CSV has no other way to write a
 * null (the platform writes absent values as empty fields), so an empty string cannot be told apart.
 */
import { daysFromCivil, isCivilDateTime } from '../../shared/calendar.js';
import type { CellValue } from '../../sinks/index.js';

export type ParsedCell = { ok: true; value: CellValue } | { ok: false; expected: string };

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

const ok = (value: CellValue): ParsedCell => ({ ok: true, value });
const bad = (expected: string): ParsedCell => ({ ok: false, expected });

export function isNullValue(value: unknown): boolean {
  return value === null || value === undefined || value === '';
}

// Leading zeros name no magnitude (`000…0012` is 12), so they are set aside before the digits are counted.
const INTEGER_TEXT = /^([+-]?)0*(\d{1,19})$/;

function integerOf(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value !== 'string') return undefined;
  return integerText(value.trim());
}

/**
 * Decimal digits with an optional sign → bigint. At most 19 significant digits: anything longer is out of
 * the int64 range anyway, and BigInt() stays cheap.
 */
function integerText(text: string): bigint | undefined {
  const m = INTEGER_TEXT.exec(text);
  return m ? BigInt(m[1]! + m[2]!) : undefined;
}

export function parseInt64(value: unknown): ParsedCell {
  const n = integerOf(value);
  if (n === undefined || n < INT64_MIN || n > INT64_MAX) return bad('a 64-bit integer');
  return ok(n);
}

export function parseInt32(value: unknown): ParsedCell {
  const n = integerOf(value);
  if (n === undefined || n < BigInt(INT32_MIN) || n > BigInt(INT32_MAX)) return bad('a 32-bit integer');
  return ok(Number(n));
}

export function parseBoolean(value: unknown): ParsedCell {
  if (typeof value === 'boolean') return ok(value);
  if (value === 1 || value === 0) return ok(value === 1);
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true' || text === '1') return ok(true);
    if (text === 'false' || text === '0') return ok(false);
  }
  return bad('a boolean (true or false)');
}

/**
 * Any value as text: numbers and booleans as written, objects and arrays as JSON. A record's own decimals
 * arrive as their source text (lossless-json.ts), integers as numbers: the one integer String() does not
 * write back as it came is JSON's `-0` (as "0"), and +0 only ever comes from `0`.
 */
export function parseText(value: unknown): ParsedCell {
  if (typeof value === 'string') return ok(value);
  if (Object.is(value, -0)) return ok('-0');
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return ok(String(value));
  return ok(JSON.stringify(value));
}

// YYYY-MM-DD, optionally THH:MM[:SS[.fraction]], optionally Z or ±HH[:MM]. The wire says every timestamp
// is UTC (management-api.md, wire rule 4), so a time without a zone is read as UTC.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const EXPECTED_TIMESTAMP = 'an ISO 8601 timestamp such as 2026-11-21T10:15:00Z';
/** ISO 8601's own forms a warehouse timestamp cannot hold, named so the reject does not read "not ISO 8601". */
const EXPECTED_CIVIL_TIME =
  'a date and time a warehouse timestamp holds: years 0001–9999, a real day of its month, hours 00–23 and seconds 00–59 (no leap second 23:59:60, no 24:00)';

/**
 * An ISO 8601 text → epoch microseconds (bigint), which the sinks store as TIMESTAMP(MILLIS or MICROS).
 * Digits past the microsecond are dropped: Parquet readers cannot take nanoseconds.
 */
export function parseTimestamp(value: unknown): ParsedCell {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? bad(EXPECTED_TIMESTAMP) : ok(BigInt(value.getTime()) * 1000n);
  if (typeof value !== 'string') return bad(EXPECTED_TIMESTAMP);
  const m = ISO.exec(value.trim());
  if (!m) return bad(EXPECTED_TIMESTAMP);
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  // By calendar arithmetic, not Date.UTC: that rolls impossible dates over (Feb 30 → Mar 2) and reads years
  // 0–99 as 1900–1999, so a real 0001-01-01 (Go's zero time) would have been refused.
  if (!isCivilDateTime(year, month, day, hour, minute, second)) return bad(EXPECTED_CIVIL_TIME);
  const ms = ((daysFromCivil(year, month, day) * 24 + hour) * 3600 + minute * 60 + second) * 1000;
  const fractionMicros = BigInt((m[7] ?? '').padEnd(6, '0').slice(0, 6));
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const hours = Number(digits.slice(1, 3));
    const minutes = Number(digits.slice(3, 5) || '0');
    if (hours > 23 || minutes > 59) return bad(EXPECTED_TIMESTAMP);
    offsetMinutes = (digits[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  return ok(BigInt(ms - offsetMinutes * 60_000) * 1000n + fractionMicros);
}
