/**
 * CSV (RFC 4180), gzip-compressed, with a header row. A null is an empty field and an empty string is `""`,
 * so the two stay apart (Redshift: `EMPTYASNULL` off; BigQuery and Snowflake read `""` as empty).
 * Timestamps are ISO 8601 UTC, booleans `true`/`false`, int64 exact digits.
 */
import { formatTimestamp, isNullCell, toBoolean, toInt32, toInt64, toText } from '../cells.js';
import type { ColumnSpec, Row, TableSchema } from '../schema.js';
import type { FileEncoder } from './file-encoder.js';
import { gzipLines } from './gzip-text.js';
import type { GzipTextOptions } from './ndjson-encoder.js';

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

function quote(text: string): string {
  return text === '' || NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function csvField(column: ColumnSpec, value: Row[string], rowNumber: number): string {
  if (isNullCell(column, value, rowNumber)) return '';
  switch (column.type) {
    case 'int64': return toInt64(column, value, rowNumber).toString();
    case 'int32': return String(toInt32(column, value, rowNumber));
    case 'boolean': return toBoolean(column, value, rowNumber) ? 'true' : 'false';
    case 'string': return quote(toText(column, value, rowNumber));
    case 'timestamp_ms':
    case 'timestamp_us': return formatTimestamp(column, value, rowNumber);
  }
}

export function createCsvEncoder(schema: TableSchema, options: GzipTextOptions = {}): FileEncoder {
  const header = `${schema.columns.map((c) => quote(c.name)).join(',')}\n`;
  const line = (row: Row, rowNumber: number) => `${schema.columns.map((c) => csvField(c, row[c.name], rowNumber)).join(',')}\n`;
  return {
    extension: 'csv.gz',
    contentType: 'text/csv',
    compression: 'gzip',
    rollEveryRows: 1,
    encode: (rows, firstRowNumber) => gzipLines(rows, firstRowNumber, options.gzipLevel ?? 6, header, line),
  };
}
