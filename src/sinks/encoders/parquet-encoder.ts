/**
 * Parquet through parquet-wasm (Rust arrow-rs compiled to WebAssembly) fed with Arrow IPC streams written from
 * typed arrays. Chosen by measurement over hyparquet-writer and DuckDB: see docs/parquet.md.
 *
 * Memory: one Arrow batch in JS plus the row group being encoded inside the wasm writer; nothing grows
 * with the number of rows. Bytes come out one row group at a time.
 */
import { Compression, Table as WasmTable, WriterPropertiesBuilder, transformParquetStream, type RecordBatch as WasmRecordBatch, type WriterProperties } from 'parquet-wasm/node';
import { ColumnBatch } from '../column-batch.js';
import type { Row, TableSchema } from '../schema.js';
import { ArrowBatchBuilder, batchToIpc } from './arrow-batch.js';
import { schemaMessage } from './arrow-ipc.js';
import type { FileEncoder } from './file-encoder.js';
import { parquetBatching, type ParquetCompression, type ParquetOptions } from './parquet-batching.js';

export type { ParquetCompression, ParquetOptions } from './parquet-batching.js';

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

/** Where the next Arrow IPC batch comes from; undefined once there are no more. */
type IpcSource = { next(): Promise<Uint8Array | undefined>; cancel(): Promise<void> };

/** Rows → IPC batches of `batchRows`, never straddling a row group, so row groups hold exactly `rowGroupRows`. */
function ipcFromRows(rows: AsyncIterable<Row>, schema: TableSchema, firstRowNumber: number, batchRows: number, rowGroupRows: number): IpcSource {
  const builder = new ArrowBatchBuilder(schema, batchRows);
  const iterator = rows[Symbol.asyncIterator]();
  let rowNumber = firstRowNumber - 1;
  let rowsInGroup = 0;
  let sentAny = false;
  let ended = false;
  return {
    async next() {
      if (ended) return undefined;
      for (;;) {
        const next = await iterator.next();
        if (next.done) {
          ended = true;
          // An empty file still carries the schema, so it is sent one empty batch.
          return builder.length > 0 || !sentAny ? builder.takeIpc() : undefined;
        }
        builder.push(next.value, ++rowNumber);
        rowsInGroup++;
        if (builder.full || rowsInGroup === rowGroupRows) {
          if (rowsInGroup === rowGroupRows) rowsInGroup = 0;
          sentAny = true;
          return builder.takeIpc();
        }
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  };
}

/** Column batches → IPC batches; the producer cuts them so that none straddles a row group. */
function ipcFromBatches(batches: AsyncIterable<ColumnBatch>, schema: TableSchema): IpcSource {
  const ipcSchema = schemaMessage(schema);
  const iterator = batches[Symbol.asyncIterator]();
  let sentAny = false;
  let ended = false;
  return {
    async next() {
      if (ended) return undefined;
      const next = await iterator.next();
      if (next.done) {
        ended = true;
        // An empty file still carries the schema, so it is sent one empty batch.
        return sentAny ? undefined : batchToIpc(new ColumnBatch(schema, 0), ipcSchema);
      }
      sentAny = true;
      return batchToIpc(next.value, ipcSchema);
    },
    async cancel() {
      await iterator.return?.();
    },
  };
}

/**
 * arrow-rs's defaults (page statistics, 1 MiB data and dictionary pages, zstd level 1) except that distinct
 * columns get no dictionary: arrow-rs would hash every value into one until the page limit, then drop it
 * and write plain values anyway. Measured in docs/parquet.md "Settings".
 */
function writerProperties(schema: TableSchema, compression: ParquetCompression, rowGroupRows: number): WriterProperties {
  let builder = new WriterPropertiesBuilder().setCompression(CODECS[compression]).setMaxRowGroupSize(rowGroupRows).setCreatedBy('chatport (parquet-wasm)');
  for (const name of schema.distinctColumns ?? []) builder = builder.setColumnDictionaryEnabled(name, false);
  return builder.build();
}

export function createParquetEncoder(schema: TableSchema, options: ParquetOptions = {}): FileEncoder {
  const compression = options.compression ?? 'zstd';
  const { rowGroupRows, batchRows } = parquetBatching(options);
  const properties = () => writerProperties(schema, compression, rowGroupRows);

  return {
    extension: 'parquet',
    contentType: 'application/vnd.apache.parquet',
    compression,
    rollEveryRows: rowGroupRows,
    encode: (rows, firstRowNumber) => writeParquet(ipcFromRows(rows, schema, firstRowNumber, batchRows, rowGroupRows), properties()),
    encodeBatches: (batches) => writeParquet(ipcFromBatches(batches, schema), properties()),
  };
}

/** Streams IPC batches through the wasm writer; yields the file's bytes one row group at a time. */
async function* writeParquet(source: IpcSource, properties: WriterProperties): AsyncGenerator<Uint8Array> {
  // The first error from the rows (or a row that does not fit the schema) wins over whatever the wasm
  // stream reports after it was cancelled.
  let failure: { error: unknown } | undefined;
  const input = new ReadableStream<WasmRecordBatch>(
    {
      async pull(controller) {
        try {
          const ipc = await source.next();
          if (ipc === undefined) controller.close();
          else controller.enqueue(toWasmBatch(ipc));
        } catch (error) {
          failure ??= { error };
          controller.error(error);
        }
      },
      cancel: () => source.cancel(),
    },
    { highWaterMark: 0 },
  );
  try {
    const output = (await transformParquetStream(input, properties)) as ReadableStream<Uint8Array>;
    for await (const chunk of output) yield chunk;
  } catch (error) {
    throw failure ? failure.error : error;
  }
  if (failure) throw failure.error;
}
