import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { csvLineBatches } from './csv.js';
import { parseJsonArrayBatches } from './json-array.js';
import { parseNdjsonBatches } from './ndjson.js';
import { TextNormalizer } from './decode-text.js';
import { peekBytes } from './peek.js';
import { binaryFileKind, isGzip, markupFileKind, sniffFormat, SNIFF_BYTES, type NonTextKind } from './sniff.js';
import { FormatError } from './errors.js';
import { sourceItemOf, type FormatName, type LineItem, type ParseRecordsOptions, type SourceItem } from './types.js';
import { rejectUnreadableText } from './unreadable-text.js';

/**
 * Bytes of one source object → its records, in order, each with its position, in batches (whatever the
 * format parsed from one input buffer: a few hundred records). The entry point the pipeline calls: gzip is
 * detected by its magic bytes and decompressed on the way, the format is taken from `options.format` or
 * sniffed from the first bytes. No I/O of its own: the caller opens the stream (file, S3) and this reads it
 * to the end, or stops reading when the consumer stops iterating.
 *
 * Batches, not single records, because a promise per record per stage costs more CPU at millions of
 * records than the work done on each (see readBatches).
 *
 * Throws FormatError (code DATA_INVALID) only when the file as a whole cannot be read on; single bad
 * records come out as UnparseableRecord.
 */
export function parseRecordBatches(bytes: Readable | AsyncIterable<Uint8Array>, options: ParseRecordsOptions): AsyncIterableIterator<SourceItem[]> {
  // Without plain lines asked for, every item is a SourceItem.
  return closingSourceOnReturn(batchesOf(bytes, options, false) as AsyncGenerator<SourceItem[]>, bytes);
}

/**
 * parseRecordBatches, except that a CSV data line without quotes may come unsplit (PlainCsvLine), for a
 * reader that types values straight from its text (the export's columnar fast path).
 */
export function parseLineBatches(bytes: Readable | AsyncIterable<Uint8Array>, options: ParseRecordsOptions): AsyncIterableIterator<LineItem[]> {
  return closingSourceOnReturn(batchesOf(bytes, options, true), bytes);
}

/** parseRecordBatches one record at a time, for callers where records are few or slow anyway. */
export function parseRecords(bytes: Readable | AsyncIterable<Uint8Array>, options: ParseRecordsOptions): AsyncIterableIterator<SourceItem> {
  return closingSourceOnReturn(flatten(batchesOf(bytes, options, false) as AsyncGenerator<SourceItem[]>), bytes);
}

async function* batchesOf(bytes: Readable | AsyncIterable<Uint8Array>, options: ParseRecordsOptions, plainLines: boolean): AsyncGenerator<LineItem[]> {
  yield* await openFormat(bytes, options, plainLines);
}

async function* flatten<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}

/**
 * A generator's return() before its first next() never runs its body (nor its finally), so a consumer
 * that stops before the first record would leave the source open; this closes it in that case.
 */
function closingSourceOnReturn<T>(inner: AsyncGenerator<T>, bytes: Readable | AsyncIterable<Uint8Array>): AsyncIterableIterator<T> {
  let started = false;
  return {
    next: () => {
      started = true;
      return inner.next();
    },
    return: (value?: unknown) => {
      if (!started && 'destroy' in bytes) (bytes as Readable).destroy();
      return inner.return(value as undefined);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

async function openFormat(bytes: Readable | AsyncIterable<Uint8Array>, options: ParseRecordsOptions, plainLines: boolean): Promise<AsyncGenerator<LineItem[]>> {
  const first = await peekBytes(bytes, 8);
  let stream: Readable = first.stream;
  const gzip = options.gzip ?? 'auto';
  if (gzip === true || (gzip === 'auto' && isGzip(first.head))) {
    stream = pipeline(stream, createGunzip(), () => {
      // Errors surface through the iterator of the last stream.
    });
    // An .xlsx.gz is as little text as an .xlsx: look at what the gzip holds, before it is decoded as text.
    const inner = await peekBytes(stream, 8);
    stream = inner.stream;
    refuseNonText(binaryFileKind(inner.head), options.file, options.format, 'a gzip file holding ');
  } else refuseNonText(binaryFileKind(first.head), options.file, options.format);
  // Bytes become UTF-8 here, before sniffing and parsing; bytes the encoding cannot read are marked.
  const text = new TextNormalizer(options.encoding ?? 'utf-8', options.file);
  stream = pipeline(stream, text, () => {
    // Errors surface through the iterator of the last stream.
  });
  let format = options.format;
  if (format === undefined || format === 'csv') {
    const sniffed = await peekBytes(stream, SNIFF_BYTES);
    format ??= sniffFormat(sniffed.head);
    stream = sniffed.stream;
    if (format === 'csv') refuseNonText(markupFileKind(sniffed.head), options.file, format);
  }
  options.onFormat?.(format);
  return rejectingUnreadable(parserFor(format, stream, options, plainLines), text);
}

/** A file that is no records of any format chatport reads stops as a whole, saying what it is. */
function refuseNonText(kind: NonTextKind | undefined, file: string, format: FormatName | undefined, container = ''): void {
  if (kind === undefined) return;
  const expected = format === undefined ? 'CSV, NDJSON or JSON' : format === 'json' ? 'JSON' : format.toUpperCase();
  throw new FormatError(`${file}: is ${container}${kind.what}, not ${expected} text; ${kind.todo}`, { file, line: 1, expected: `${expected} text`, found: `${container}${kind.what}` });
}

function parserFor(format: FormatName, stream: Readable, options: ParseRecordsOptions, plainLines: boolean): AsyncGenerator<LineItem[]> {
  switch (format) {
    case 'csv':
      return csvLineBatches(stream, options.file, options.csv ?? {}, plainLines);
    case 'ndjson':
      return parseNdjsonBatches(stream, options.file, options.decimals, options.bigIntegers);
    case 'json':
      return parseJsonArrayBatches(stream, options.file, options.decimals, options.bigIntegers);
  }
}

/**
 * Once the file had a byte its encoding cannot read, every record from there on is searched for the marks
 * (cheap next to parsing, and only in such files); the records holding one are rejected by name. Plain CSV
 * lines are split for it, so no reader is handed a line holding a mark.
 */
async function* rejectingUnreadable(batches: AsyncGenerator<LineItem[]>, text: TextNormalizer): AsyncGenerator<LineItem[]> {
  for await (const batch of batches) {
    if (text.invalidBytes === 0) yield batch;
    else yield batch.map((item) => rejectUnreadableText(sourceItemOf(item), text.encodingName));
  }
}
