/**
 * Parquet settings that the rest of the export needs without loading the writer (parquet-wasm,
 * loaded only when Parquet is written): how rows are cut into row groups and Arrow batches.
 */
export type ParquetCompression = 'zstd' | 'snappy' | 'gzip' | 'uncompressed';

export interface ParquetOptions {
  /** Column compression. Default `zstd`. */
  compression?: ParquetCompression;
  /**
   * Rows per row group. Default 1,048,576 (arrow-rs's default): for the analytics tables that is about
   * 60 MB before compression, above the 16 MiB BigQuery recommends, and files of 100–250 MB hold a few.
   */
  rowGroupRows?: number;
  /** Rows per Arrow batch handed to the writer. Default 65,536 (smaller when a row group is smaller). */
  batchRows?: number;
}

export function parquetBatching(options: ParquetOptions = {}): { rowGroupRows: number; batchRows: number } {
  const rowGroupRows = options.rowGroupRows ?? 1_048_576;
  return { rowGroupRows, batchRows: Math.min(options.batchRows ?? 65_536, rowGroupRows) };
}

/**
 * Rows per column batch for a producer that fills batches itself (the export's fast path), or undefined
 * when batches of that size would straddle row groups: such settings take rows one by one instead.
 */
export function columnBatchRows(options: ParquetOptions = {}): number | undefined {
  const { rowGroupRows, batchRows } = parquetBatching(options);
  return rowGroupRows % batchRows === 0 ? batchRows : undefined;
}
