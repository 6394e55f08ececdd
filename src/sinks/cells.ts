/**
 * Checks one cell against its column type and converts it to the representation every writer needs.
 * The row typer upstream is responsible for producing these values; a mismatch here is a bug there, so it
 * fails the write with an error that names the row, the column and what was expected.
 */
import { ChatportError } from '../shared/errors.js';
import { floorMicrosToMillis } from '../shared/epoch-micros.js';
import type { CellValue, ColumnSpec } from './schema.js';

export class SinkRowError extends ChatportError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, { code: 'SINK_ROW_INVALID', details });
  }
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function fail(column: ColumnSpec, rowNumber: number, value: unknown, expected: string): never {
  const shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value);
  throw new SinkRowError(`row ${rowNumber}, column "${column.name}" (${column.type}): expected ${expected}, got ${shown}`, {
    row: rowNumber,
    column: column.name,
    type: column.type,
    expected,
  });
}

/** True when the cell is a null; throws when the column refuses nulls. */
export function isNullCell(column: ColumnSpec, value: CellValue, rowNumber: number): value is null | undefined {
  if (value !== null && value !== undefined) return false;
  if (column.nullable === false) fail(column, rowNumber, value, 'a value (the column is not nullable)');
  return true;
}

export function toInt64(column: ColumnSpec, value: CellValue, rowNumber: number): bigint {
  if (typeof value === 'bigint') {
    if (value < INT64_MIN || value > INT64_MAX) fail(column, rowNumber, value, 'a 64-bit integer');
    return value;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  return fail(column, rowNumber, value, 'a bigint or a safe integer number');
}

export function toInt32(column: ColumnSpec, value: CellValue, rowNumber: number): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) return value;
  if (typeof value === 'bigint' && value >= BigInt(INT32_MIN) && value <= BigInt(INT32_MAX)) return Number(value);
  return fail(column, rowNumber, value, 'a 32-bit integer');
}

export function toBoolean(column: ColumnSpec, value: CellValue, rowNumber: number): boolean {
  if (typeof value === 'boolean') return value;
  return fail(column, rowNumber, value, 'a boolean');
}

export function toText(column: ColumnSpec, value: CellValue, rowNumber: number): string {
  if (typeof value === 'string') return value;
  return fail(column, rowNumber, value, 'a string');
}

/** Epoch microseconds of a timestamp cell (Date or epoch-ms number or epoch-µs bigint). */
export function toEpochMicros(column: ColumnSpec, value: CellValue, rowNumber: number): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return BigInt(Math.round(value * 1000));
  if (value instanceof Date && !Number.isNaN(value.getTime())) return BigInt(value.getTime()) * 1000n;
  return fail(column, rowNumber, value, 'a Date, epoch milliseconds (number) or epoch microseconds (bigint)');
}

/** Epoch value in the column's own unit: milliseconds for `timestamp_ms` (µs are floored), else µs. */
export function toEpochInUnit(column: ColumnSpec, value: CellValue, rowNumber: number): bigint {
  const micros = toEpochMicros(column, value, rowNumber);
  if (column.type !== 'timestamp_ms') return micros;
  return floorMicrosToMillis(micros);
}

/** ISO 8601 in UTC with the column's precision: `2026-11-21T10:00:00.123Z` or `…00.123456Z`. */
export function formatTimestamp(column: ColumnSpec, value: CellValue, rowNumber: number): string {
  const micros = toEpochMicros(column, value, rowNumber);
  const ms = floorMicrosToMillis(micros);
  const rest = micros - ms * 1000n;
  const iso = new Date(Number(ms)).toISOString();
  if (column.type === 'timestamp_ms') return iso;
  return `${iso.slice(0, -1)}${rest.toString().padStart(3, '0')}Z`;
}
