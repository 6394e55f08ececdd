/** Picks the file encoder for an output format. */
import type { TableSchema } from '../schema.js';
import { createCsvEncoder } from './csv-encoder.js';
import type { FileEncoder } from './file-encoder.js';
import { createNdjsonEncoder, type GzipTextOptions } from './ndjson-encoder.js';
import type { ParquetOptions } from './parquet-batching.js';

export const OUTPUT_FORMATS = ['parquet', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface EncoderOptions {
  parquet?: ParquetOptions;
  /** For `ndjson` and `csv`. */
  text?: GzipTextOptions;
}

/**
 * Async because the Parquet writer (parquet-wasm, ~20 MB to load) is loaded
 * only when Parquet is written: the import, the sandbox and text exports never pay for it.
 */
export async function createFileEncoder(format: OutputFormat, schema: TableSchema, options: EncoderOptions = {}): Promise<FileEncoder> {
  switch (format) {
    case 'parquet': return (await import('./parquet-encoder.js')).createParquetEncoder(schema, options.parquet);
    case 'ndjson': return createNdjsonEncoder(schema, options.text);
    case 'csv': return createCsvEncoder(schema, options.text);
  }
}

export type { FileEncoder } from './file-encoder.js';
export { columnBatchRows, type ParquetOptions, type ParquetCompression } from './parquet-batching.js';
export type { GzipTextOptions } from './ndjson-encoder.js';
