/** Picks the file encoder for an output format. */
import type { TableSchema } from '../schema.js';
import { createCsvEncoder } from './csv-encoder.js';
import type { FileEncoder } from './file-encoder.js';
import { createNdjsonEncoder, type GzipTextOptions } from './ndjson-encoder.js';
import { createParquetEncoder, type ParquetOptions } from './parquet-encoder.js';

export const OUTPUT_FORMATS = ['parquet', 'ndjson', 'csv'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface EncoderOptions {
  parquet?: ParquetOptions;
  /** For `ndjson` and `csv`. */
  text?: GzipTextOptions;
}

export function createFileEncoder(format: OutputFormat, schema: TableSchema, options: EncoderOptions = {}): FileEncoder {
  switch (format) {
    case 'parquet': return createParquetEncoder(schema, options.parquet);
    case 'ndjson': return createNdjsonEncoder(schema, options.text);
    case 'csv': return createCsvEncoder(schema, options.text);
  }
}

export type { FileEncoder } from './file-encoder.js';
export type { ParquetOptions, ParquetCompression } from './parquet-encoder.js';
export type { GzipTextOptions } from './ndjson-encoder.js';
