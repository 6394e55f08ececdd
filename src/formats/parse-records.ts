import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { parseCsvRecords } from './csv.js';
import { parseJsonArrayRecords } from './json-array.js';
import { parseNdjsonRecords } from './ndjson.js';
import { peekBytes } from './peek.js';
import { isGzip, sniffFormat, SNIFF_BYTES } from './sniff.js';
import type { ParseRecordsOptions, SourceItem } from './types.js';

/**
 * Bytes of one source object → its records, in order, each with its position. The single entry point the
 * pipeline calls: gzip is detected by its magic bytes and decompressed on the way, the format is taken from
 * `options.format` or sniffed from the first bytes. No I/O of its own: the caller opens the stream (file, S3)
 * and this reads it to the end, or stops reading when the consumer stops iterating.
 *
 * Throws FormatError (code DATA_INVALID) only when the file as a whole cannot be read on; single bad
 * records come out as UnparseableRecord.
 */
export function parseRecords(bytes: Readable | AsyncIterable<Uint8Array>, options: ParseRecordsOptions): AsyncIterableIterator<SourceItem> {
  // Hands out the format parser's own iterator once it is chosen, instead of re-yielding from a wrapping
  // generator: one promise less per record, which shows in the CPU cost per record.
  let inner: AsyncGenerator<SourceItem> | undefined;
  let opening: Promise<AsyncGenerator<SourceItem>> | undefined;
  const open = () => (opening ??= openFormat(bytes, options).then((it) => (inner = it)));
  return {
    next: () => (inner !== undefined ? inner.next() : open().then((it) => it.next())),
    return: async (value?: unknown) => {
      if (inner === undefined && opening === undefined && 'destroy' in bytes) (bytes as Readable).destroy();
      const it = inner ?? (opening ? await opening : undefined);
      return it ? it.return(value as undefined) : { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

async function openFormat(bytes: Readable | AsyncIterable<Uint8Array>, options: ParseRecordsOptions): Promise<AsyncGenerator<SourceItem>> {
  const first = await peekBytes(bytes, 2);
  let stream: Readable = first.stream;
  const gzip = options.gzip ?? 'auto';
  if (gzip === true || (gzip === 'auto' && isGzip(first.head)))
    stream = pipeline(stream, createGunzip(), () => {
      // Errors surface through the iterator of the last stream.
    });
  let format = options.format;
  if (format === undefined) {
    const sniffed = await peekBytes(stream, SNIFF_BYTES);
    format = sniffFormat(sniffed.head);
    stream = sniffed.stream;
  }
  switch (format) {
    case 'csv':
      return parseCsvRecords(stream, options.file, options.csv);
    case 'ndjson':
      return parseNdjsonRecords(stream, options.file);
    case 'json':
      return parseJsonArrayRecords(stream, options.file);
  }
}
