/**
 * Column batches (column-batch.ts: typed arrays, no per-value objects) → an Arrow IPC stream, which
 * parquet-wasm takes as its input. The stream is written here (arrow-ipc.ts) rather than through
 * apache-arrow, whose loading alone cost each export process about 160 ms of CPU, and whose copies of every
 * column buffer came on top of the one copy into the stream. Only one batch is held at a time.
 */
import { ColumnBatch, type ColumnBuffer } from '../column-batch.js';
import type { Row, TableSchema } from '../schema.js';
import { ipcStream, schemaMessage } from './arrow-ipc.js';

const NONE = new Uint8Array(0);

/** A typed array's first `count` elements as bytes, without a copy. */
function bytesOf(array: BigInt64Array | Int32Array, count: number): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, count * array.BYTES_PER_ELEMENT);
}

/**
 * A column's buffers for its first `length` rows, in Arrow's order: validity (left out when nothing is
 * null, as the format allows), then offsets and UTF-8 bytes, or the values. Views, not copies: the
 * stream copies them once. Typed arrays are in the host's byte order, little-endian on x64 and arm64.
 */
function columnBuffers(column: ColumnBuffer, length: number): Uint8Array[] {
  const bitmapBytes = Math.ceil(length / 8);
  const validity = column.nullCount > 0 ? column.validity.subarray(0, bitmapBytes) : NONE;
  if (column.offsets) return [validity, bytesOf(column.offsets, length + 1), column.bytes.subarray(0, column.byteLength)];
  if (column.bits) return [validity, column.bits.subarray(0, bitmapBytes)];
  if (column.int32) return [validity, bytesOf(column.int32, length)];
  return [validity, bytesOf(column.int64!, length)];
}

/** A batch's rows as an Arrow IPC stream (the schema message, one record batch); `schema` from schemaMessage. */
export function batchToIpc(batch: ColumnBatch, schema: Uint8Array): Uint8Array {
  const length = batch.length;
  return ipcStream(schema, {
    length,
    nodes: batch.columns.flatMap((c) => [length, c.nullCount]),
    buffers: batch.columns.flatMap((c) => columnBuffers(c, length)),
  });
}

/** Fills a batch row by row; `takeIpc()` hands out the batch as an IPC stream and starts a new one. */
export class ArrowBatchBuilder {
  readonly schema: Uint8Array;
  private readonly batch: ColumnBatch;

  constructor(tableSchema: TableSchema, readonly capacity: number) {
    this.schema = schemaMessage(tableSchema);
    this.batch = new ColumnBatch(tableSchema, capacity);
  }

  get length(): number {
    return this.batch.length;
  }

  get full(): boolean {
    return this.batch.full;
  }

  /** Adds one row; `rowNumber` (1-based, within the output) is only for error messages. */
  push(row: Row, rowNumber: number): void {
    this.batch.pushRow(row, rowNumber);
  }

  takeIpc(): Uint8Array {
    const ipc = batchToIpc(this.batch, this.schema);
    this.batch.reset();
    return ipc;
  }
}
