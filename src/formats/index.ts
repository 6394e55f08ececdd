/** Bytes ⇄ records: CSV, NDJSON, JSON array, gzip, sniffing. Pure stream adapters without I/O of their own. */
export { parseRecords, parseRecordBatches, parseLineBatches } from './parse-records.js';
export { parseCsvBatches } from './csv.js';
export { parseNdjsonBatches } from './ndjson.js';
export { parseJsonArrayBatches } from './json-array.js';
export { readBatches } from '../shared/read-batches.js';
export { sniffFormat, isGzip, SNIFF_BYTES } from './sniff.js';
export { peekBytes } from './peek.js';
export { FormatError } from './errors.js';
export { FORMATS, RAW_TEXT_LIMIT, clipText, isUnparseable, isPlainCsvLine, sourceItemOf } from './types.js';
export type { RecordPosition, SourceRecord, UnparseableRecord, SourceItem, LineItem, PlainCsvLine, PlainCsvLineSource, FormatName, CsvFormatOptions, ParseRecordsOptions } from './types.js';
export { SOURCE_ENCODINGS, ENCODING_ALIASES, normalizeEncoding, TextNormalizer } from './decode-text.js';
export type { SourceEncoding } from './decode-text.js';
