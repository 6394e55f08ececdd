/** How rows of one output file become bytes. One encoder per format; all stream and pull rows lazily. */
import type { ColumnBatch } from '../column-batch.js';
import type { Row } from '../schema.js';

export interface FileEncoder {
  /** File name extension without the dot: `parquet`, `ndjson.gz`, `csv.gz`. */
  readonly extension: string;
  readonly contentType: string;
  /** The compression inside the files, as recorded in the manifest. */
  readonly compression: string;
  /**
   * Rows the encoder gathers before its output grows (a Parquet row group). The file roller checks the
   * size only at multiples of this, so Parquet files end on whole row groups.
   */
  readonly rollEveryRows: number;
  /**
   * Encodes the rows of one file. `firstRowNumber` (1-based, across the whole export) numbers rows in
   * errors. Rows are pulled only as fast as the bytes are consumed.
   */
  encode(rows: AsyncIterable<Row>, firstRowNumber: number): AsyncIterable<Uint8Array>;
  /**
   * Encodes rows that come as column batches (Parquet only), each of them within one row group: the
   * producer cuts them at multiples of `rollEveryRows`.
   */
  encodeBatches?(batches: AsyncIterable<ColumnBatch>): AsyncIterable<Uint8Array>;
}
