/**
 * Collects typed rows into Arrow column buffers (typed arrays, no per-value objects) and turns a full batch
 * into an Arrow IPC stream, which parquet-wasm takes as its input. Only one batch is held at a time.
 */
import {
  Bool, Field, Int32, Int64, RecordBatch, Schema, Struct, Table, TimestampMicrosecond, TimestampMillisecond, Utf8,
  makeData, tableToIPC, type DataType,
} from 'apache-arrow';
import { isNullCell, toBoolean, toEpochInUnit, toInt32, toInt64, toText } from '../cells.js';
import type { CellValue, ColumnSpec, ColumnType, Row, TableSchema } from '../schema.js';

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

const encoder = new TextEncoder();

/** One column's buffers for up to `capacity` rows. */
class ColumnBuffer {
  readonly validity: Uint8Array;
  nullCount = 0;
  private readonly int64?: BigInt64Array;
  private readonly int32?: Int32Array;
  private readonly bits?: Uint8Array;
  private readonly offsets?: Int32Array;
  private bytes = new Uint8Array(0);
  private byteLength = 0;

  constructor(readonly spec: ColumnSpec, readonly type: DataType, capacity: number) {
    this.validity = new Uint8Array(Math.ceil(capacity / 8));
    if (spec.type === 'int64' || spec.type === 'timestamp_ms' || spec.type === 'timestamp_us') this.int64 = new BigInt64Array(capacity);
    else if (spec.type === 'int32') this.int32 = new Int32Array(capacity);
    else if (spec.type === 'boolean') this.bits = new Uint8Array(Math.ceil(capacity / 8));
    else {
      this.offsets = new Int32Array(capacity + 1);
      this.bytes = new Uint8Array(64 * 1024);
    }
  }

  set(index: number, value: CellValue, rowNumber: number): void {
    const spec = this.spec;
    if (isNullCell(spec, value, rowNumber)) {
      this.nullCount++;
      if (this.offsets) this.offsets[index + 1] = this.byteLength;
      return;
    }
    this.validity[index >> 3]! |= 1 << (index & 7);
    switch (spec.type) {
      case 'int64': this.int64![index] = toInt64(spec, value, rowNumber); break;
      case 'int32': this.int32![index] = toInt32(spec, value, rowNumber); break;
      case 'boolean': if (toBoolean(spec, value, rowNumber)) this.bits![index >> 3]! |= 1 << (index & 7); break;
      case 'timestamp_ms':
      case 'timestamp_us': this.int64![index] = toEpochInUnit(spec, value, rowNumber); break;
      case 'string': this.appendText(index, toText(spec, value, rowNumber)); break;
    }
  }

  private appendText(index: number, text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const worst = this.byteLength + text.length * 3;
    if (worst > this.bytes.length) {
      const grown = new Uint8Array(Math.max(worst, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.byteLength));
      this.bytes = grown;
    }
    this.byteLength += encoder.encodeInto(text, this.bytes.subarray(this.byteLength)).written;
    this.offsets![index + 1] = this.byteLength;
  }

  /** Arrow data for the first `length` rows; copies, so the buffers can be reused. */
  toData(length: number) {
    const nullBitmap = this.nullCount > 0 ? this.validity.slice(0, Math.ceil(length / 8)) : undefined;
    const base = { type: this.type, length, nullCount: this.nullCount, nullBitmap };
    if (this.offsets) {
      return makeData({ ...base, type: this.type as Utf8, valueOffsets: this.offsets.slice(0, length + 1), data: this.bytes.slice(0, this.byteLength) });
    }
    if (this.bits) return makeData({ ...base, type: this.type as Bool, data: this.bits.slice(0, Math.ceil(length / 8)) });
    if (this.int32) return makeData({ ...base, type: this.type as Int32, data: this.int32.slice(0, length) });
    return makeData({ ...base, type: this.type as Int64, data: this.int64!.slice(0, length) });
  }

  reset(): void {
    this.validity.fill(0);
    this.bits?.fill(0);
    this.nullCount = 0;
    this.byteLength = 0;
  }
}

/** Fills Arrow columns row by row; `takeIpc()` hands out the batch as an IPC stream and starts a new one. */
export class ArrowBatchBuilder {
  readonly schema: Schema;
  private readonly columns: ColumnBuffer[];
  length = 0;

  constructor(tableSchema: TableSchema, readonly capacity: number) {
    this.schema = arrowSchemaOf(tableSchema);
    this.columns = tableSchema.columns.map((spec, i) => new ColumnBuffer(spec, this.schema.fields[i]!.type, capacity));
  }

  get full(): boolean {
    return this.length >= this.capacity;
  }

  /** Adds one row; `rowNumber` (1-based, within the output) is only for error messages. */
  push(row: Row, rowNumber: number): void {
    for (const column of this.columns) column.set(this.length, row[column.spec.name], rowNumber);
    this.length++;
  }

  takeIpc(): Uint8Array {
    const length = this.length;
    const children = this.columns.map((c) => c.toData(length));
    const struct = makeData({ type: new Struct(this.schema.fields), length, nullCount: 0, children });
    const batch = new RecordBatch(this.schema, struct);
    for (const column of this.columns) column.reset();
    this.length = 0;
    return tableToIPC(new Table([batch]), 'stream');
  }
}
