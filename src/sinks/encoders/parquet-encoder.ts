/**
 * Parquet through parquet-wasm (Rust arrow-rs compiled to WebAssembly) fed with Arrow batches built from
 * typed arrays. Chosen by measurement over hyparquet-writer and DuckDB: see docs/parquet.md.
 *
 * Memory: one Arrow batch in JS plus the row group being encoded inside the wasm writer; nothing grows
 * with the number of rows. Bytes come out one row group at a time.
 */
import { Compression, Table as WasmTable, WriterPropertiesBuilder, transformParquetStream, type RecordBatch as WasmRecordBatch } from 'parquet-wasm/node';
import type { Row, TableSchema } from '../schema.js';
import { ArrowBatchBuilder } from './arrow-batch.js';
import type { FileEncoder } from './file-encoder.js';

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

const CODECS: Record<ParquetCompression, Compression> = {
  zstd: Compression.ZSTD,
  snappy: Compression.SNAPPY,
  gzip: Compression.GZIP,
  uncompressed: Compression.UNCOMPRESSED,
};

function toWasmBatch(ipc: Uint8Array): WasmRecordBatch {
  const table = WasmTable.fromIPCStream(ipc);
  try {
    const batch = table.recordBatch(0);
    if (!batch) throw new Error('Arrow IPC stream without a record batch');
    return batch;
  } finally {
    // wasm memory is not garbage-collected promptly; without this it grows with every batch.
    table.free();
  }
}

export function createParquetEncoder(schema: TableSchema, options: ParquetOptions = {}): FileEncoder {
  const compression = options.compression ?? 'zstd';
  const rowGroupRows = options.rowGroupRows ?? 1_048_576;
  const batchRows = Math.min(options.batchRows ?? 65_536, rowGroupRows);

  async function* encode(rows: AsyncIterable<Row>, firstRowNumber: number): AsyncGenerator<Uint8Array> {
    const builder = new ArrowBatchBuilder(schema, batchRows);
    const iterator = rows[Symbol.asyncIterator]();
    let rowNumber = firstRowNumber - 1;
    let rowsInGroup = 0;
    let sentAny = false;
    // The first error from the rows (or a row that does not fit the schema) wins over whatever the wasm
    // stream reports after it was cancelled.
    let failure: { error: unknown } | undefined;

    const input = new ReadableStream<WasmRecordBatch>(
      {
        async pull(controller) {
          try {
            for (;;) {
              const next = await iterator.next();
              if (next.done) {
                // An empty file still carries the schema, so it is sent one empty batch.
                if (builder.length > 0 || !sentAny) controller.enqueue(toWasmBatch(builder.takeIpc()));
                controller.close();
                return;
              }
              builder.push(next.value, ++rowNumber);
              rowsInGroup++;
              // A batch never straddles a row group, so row groups hold exactly `rowGroupRows` rows.
              if (builder.full || rowsInGroup === rowGroupRows) {
                if (rowsInGroup === rowGroupRows) rowsInGroup = 0;
                sentAny = true;
                controller.enqueue(toWasmBatch(builder.takeIpc()));
                return;
              }
            }
          } catch (error) {
            failure ??= { error };
            controller.error(error);
          }
        },
        async cancel() {
          await iterator.return?.();
        },
      },
      { highWaterMark: 0 },
    );

    const properties = new WriterPropertiesBuilder()
      .setCompression(CODECS[compression])
      .setMaxRowGroupSize(rowGroupRows)
      .setCreatedBy('chatport (parquet-wasm)')
      .build();
    try {
      const output = (await transformParquetStream(input, properties)) as ReadableStream<Uint8Array>;
      for await (const chunk of output) yield chunk;
    } catch (error) {
      throw failure ? failure.error : error;
    }
    if (failure) throw failure.error;
  }

  return {
    extension: 'parquet',
    contentType: 'application/vnd.apache.parquet',
    compression,
    rollEveryRows: rowGroupRows,
    encode,
  };
}
