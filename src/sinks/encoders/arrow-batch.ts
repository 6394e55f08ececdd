/**
 * Column batches (column-batch.ts: typed arrays, no per-value objects) → Arrow data → an Arrow IPC stream,
 * which parquet-wasm takes as its input. Only one batch is held at a time.
 */
import {
  Bool, Field, Int32, Int64, RecordBatch, Schema, Struct, Table, TimestampMicrosecond, TimestampMillisecond, Utf8,
  makeData, tableToIPC, type DataType,
} from 'apache-arrow';
import { ColumnBatch, type ColumnBuffer } from '../column-batch.js';
import type { ColumnType, Row, TableSchema } from '../schema.js';

function arrowType(type: ColumnType): DataType {
  switch (type) {
    case 'int64': return new Int64();
    case 'int32': return new Int32();
    case 'boolean': return new Bool();
    case 'string': return new Utf8();
    // The time zone makes the Parquet column TIMESTAMP(isAdjustedToUTC=true).
    case 'timestamp_ms': return new TimestampMillisecond('UTC');
    case 'timestamp_us': return new TimestampMicrosecond('UTC');
  }
}

export function arrowSchemaOf(schema: TableSchema): Schema {
  return new Schema(schema.columns.map((c) => new Field(c.name, arrowType(c.type), c.nullable !== false)));
}

/** Arrow data for the first `length` rows of a column; copies, so the buffers can be reused. */
function columnData(column: ColumnBuffer, type: DataType, length: number) {
  const nullBitmap = column.nullCount > 0 ? column.validity.slice(0, Math.ceil(length / 8)) : undefined;
  const base = { type, length, nullCount: column.nullCount, nullBitmap };
  if (column.offsets) return makeData({ ...base, type: type as Utf8, valueOffsets: column.offsets.slice(0, length + 1), data: column.bytes.slice(0, column.byteLength) });
  if (column.bits) return makeData({ ...base, type: type as Bool, data: column.bits.slice(0, Math.ceil(length / 8)) });
  if (column.int32) return makeData({ ...base, type: type as Int32, data: column.int32.slice(0, length) });
  return makeData({ ...base, type: type as Int64, data: column.int64!.slice(0, length) });
}

/** A batch's rows as an Arrow IPC stream (one record batch). */
export function batchToIpc(batch: ColumnBatch, schema: Schema): Uint8Array {
  const length = batch.length;
  const children = batch.columns.map((c, i) => columnData(c, schema.fields[i]!.type, length));
  const struct = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children });
  return tableToIPC(new Table([new RecordBatch(schema, struct)]), 'stream');
}

/** Fills a batch row by row; `takeIpc()` hands out the batch as an IPC stream and starts a new one. */
export class ArrowBatchBuilder {
  readonly schema: Schema;
  private readonly batch: ColumnBatch;

  constructor(tableSchema: TableSchema, readonly capacity: number) {
    this.schema = arrowSchemaOf(tableSchema);
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
