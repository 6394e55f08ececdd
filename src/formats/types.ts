import type { BigIntegers, Decimals } from '../shared/lossless-json.js';
import type { SourceEncoding } from './decode-text.js';

/**
 * What the format adapters produce. Records are data, not exceptions: a line that cannot be parsed is an
 * `UnparseableRecord` in the same stream, at its position, so the run can reject it and go on.
 */

/** Where a record came from. `line` is 1-based (CSV, NDJSON); `index` is 0-based among the file's records. */
export interface RecordPosition {
  /** The source's name as given by the caller (a path or an s3:// URL). */
  file: string;
  /** Line where the record starts (CSV: its first physical line, even when a quoted field spans several). */
  line?: number;
  /** 0-based number of the record in the file: data rows, not header or blank lines. */
  index: number;
}

export interface SourceRecord {
  record: Record<string, unknown>;
  position: RecordPosition;
  /**
   * CSV: a row of delimiters only (`,,,`), every field empty, as spreadsheets write formatted rows with
   * nothing in them. Still a record (DuckDB reads it as a row of NULLs), which the stage skips with a reason.
   */
  emptyRow?: true;
}

/** A record the format could not turn into an object (bad JSON line, wrong CSV column count, non-object). */
export interface UnparseableRecord {
  unparseable: {
    /** What went wrong, for people. */
    message: string;
    /** What the format expected there. */
    expected: string;
    /** The raw text of the record (at most `RAW_TEXT_LIMIT` characters), or the JSON value that was not an object. */
    raw: unknown;
    /** The source field at fault, when one is (a field holding bytes the encoding cannot read). */
    field?: string;
    /** What was found, when the record as a whole says less: that field's text, unreadable bytes shown as U+FFFD. */
    foundText?: string;
    /**
     * The fault is this record's own (a stray quote, one array element that is not JSON): the records around
     * it were read right, so it says nothing of a wrong format or encoding, and the pre-flight lets it pass
     * to be rejected like any later record.
     */
    alone?: true;
  };
  position: RecordPosition;
}

export type SourceItem = SourceRecord | UnparseableRecord;

export function isUnparseable(item: SourceItem): item is UnparseableRecord {
  return (item as UnparseableRecord).unparseable !== undefined;
}

/**
 * A CSV data line holding no quote and no lone CR, handed out unsplit (only by parseLineBatches): a reader that can take the values from the text itself skips a field string per cell and a
 * record object per row. `from.item(line)` gives exactly the SourceItem the reader would otherwise have given
 * (the record, or the wrong field count as an unparseable record).
 */
export interface PlainCsvLine {
  /** The line's text, without its line break. */
  plainLine: string;
  line: number;
  index: number;
  from: PlainCsvLineSource;
}

/** The file a PlainCsvLine came from: its columns (fixed by then) and how its lines become records. */
export interface PlainCsvLineSource {
  readonly columns: readonly string[];
  readonly delimiter: string;
  item(line: PlainCsvLine): SourceItem;
}

/** What parseRecordBatches gives when plain CSV lines may come unsplit. */
export type LineItem = SourceItem | PlainCsvLine;

export function isPlainCsvLine(item: LineItem): item is PlainCsvLine {
  return (item as PlainCsvLine).plainLine !== undefined;
}

/** The SourceItem of an item, a plain CSV line split and built as the reader would have. */
export function sourceItemOf(item: LineItem): SourceItem {
  return isPlainCsvLine(item) ? item.from.item(item) : item;
}

/** Raw text kept for an unparseable record; longer text is cut (with a marker) so rejects stay small. */
export const RAW_TEXT_LIMIT = 16_384;

export function clipRaw(text: string): string {
  if (text.length <= RAW_TEXT_LIMIT) return text;
  const kept = clipText(text, RAW_TEXT_LIMIT);
  return `${kept}…[${text.length - kept.length} more characters]`;
}

/**
 * The first `limit` UTF-16 units of a text, one fewer where the cut would split a surrogate pair: half an
 * emoji is a lone surrogate, which the rejects file could only show as an escape of no character.
 */
export function clipText(text: string, limit: number): string {
  const high = text.charCodeAt(limit - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? limit - 1 : limit);
}

export const FORMATS = ['csv', 'ndjson', 'json'] as const;
export type FormatName = (typeof FORMATS)[number];

export interface CsvFormatOptions {
  /** The first row names the columns. Default true. */
  header?: boolean;
  /**
   * Column names to use. With `header: true` they replace the header row's names (the row is still skipped);
   * with `header: false` they name the columns. Without header and columns, columns are named "1", "2", ….
   */
  columns?: string[];
  /** Field delimiter (one or more characters). Default ",". */
  delimiter?: string;
  /** Quote character. Default '"'. */
  quote?: string;
  /** Strip a leading byte order mark. Default true. */
  bom?: boolean;
  /** Told the column names once they are known (from the header, or the first row's width), even in a file with no rows. */
  onColumns?: (columns: readonly string[]) => void;
}

export interface ParseRecordsOptions {
  /** The source's name, copied into every position. */
  file: string;
  /** The format; sniffed from the first bytes when absent. */
  format?: FormatName;
  /** "auto" (default) decompresses when the bytes start with the gzip magic number; true/false force it. */
  gzip?: 'auto' | boolean;
  /** The file's text encoding. Default UTF-8 (a UTF-16 byte order mark switches to UTF-16). */
  encoding?: SourceEncoding;
  /** CSV options (ignored for other formats). */
  csv?: CsvFormatOptions;
  /** Told the format once it is known (given or sniffed), before the first record. */
  onFormat?: (format: FormatName) => void;
  /**
   * JSON numbers with a fraction or an exponent: doubles (`number`, the default) or their exact source text
   * (`text`), for callers that keep values as text and must not round or rewrite them.
   */
  decimals?: Decimals;
  /**
   * JSON integers beyond ±(2^53 − 1): their exact decimal text (`text`, the default) or a bigint (`bigint`),
   * for callers that must still tell such a number from text (the import: an untyped value stays a number).
   */
  bigIntegers?: BigIntegers;
}
