/**
 * Up to `capacity` rows held as columns in Arrow's layout (typed arrays, validity bits, UTF-8 bytes with
 * offsets), with no object per value. A row comes in either as a typed Row, checked cell by cell like every
 * writer checks it (cells.ts), or through setters for values the caller has already typed (the export's
 * columnar fast path), then `endRow()`. encoders/arrow-batch.ts writes a batch as an Arrow IPC stream.
 */
import { isNullCell, toBoolean, toEpochInUnit, toInt32, toInt64, toText } from './cells.js';
import type { CellValue, ColumnSpec, Row, TableSchema } from './schema.js';

const TWO_TO_32 = 4294967296;
/** int64 values are written as two 32-bit halves, low half first: true on x64 and arm64. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();
/**
 * Up to this length an ASCII text is copied by a loop: most exported strings are short ids and names, for
 * which encodeInto's call, its view of the buffer and its result object cost more than the copy.
 */
const SHORT_TEXT = 64;

/**
 * Writes `text.slice(start, end)` at `at` when it is all ASCII (its UTF-8 bytes are its code units); false,
 * and bytes left unspecified, otherwise.
 */
function copyAscii(text: string, start: number, end: number, bytes: Uint8Array, at: number): boolean {
  const shift = at - start;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return false;
    bytes[shift + i] = c;
  }
  return true;
}

/** One column's buffers. */
export class ColumnBuffer {
  readonly validity: Uint8Array;
  nullCount = 0;
  /** int64 and timestamps (in the column's unit). */
  readonly int64?: BigInt64Array;
  /** The same memory as `int64`, as 32-bit halves: safe integers go in without a BigInt. */
  private readonly int64Halves?: Int32Array;
  readonly int32?: Int32Array;
  readonly bits?: Uint8Array;
  /** Strings: `offsets[i]..offsets[i + 1]` of `bytes`. */
  readonly offsets?: Int32Array;
  bytes = new Uint8Array(0);
  byteLength = 0;

  constructor(readonly spec: ColumnSpec, capacity: number) {
    this.validity = new Uint8Array(Math.ceil(capacity / 8));
    if (spec.type === 'int64' || spec.type === 'timestamp_ms' || spec.type === 'timestamp_us') {
      this.int64 = new BigInt64Array(capacity);
      this.int64Halves = new Int32Array(this.int64.buffer);
    } else if (spec.type === 'int32') this.int32 = new Int32Array(capacity);
    else if (spec.type === 'boolean') this.bits = new Uint8Array(Math.ceil(capacity / 8));
    else {
      this.offsets = new Int32Array(capacity + 1);
      this.bytes = new Uint8Array(64 * 1024);
    }
  }

  /** A typed Row's value, checked against the column (a mismatch is a bug upstream: SinkRowError). */
  setCell(index: number, value: CellValue, rowNumber: number): void {
    const spec = this.spec;
    if (isNullCell(spec, value, rowNumber)) return this.setNull(index);
    switch (spec.type) {
      case 'int64': return this.setInt64(index, toInt64(spec, value, rowNumber));
      case 'int32': return this.setInt32(index, toInt32(spec, value, rowNumber));
      case 'boolean': return this.setBoolean(index, toBoolean(spec, value, rowNumber));
      case 'timestamp_ms':
      case 'timestamp_us': return this.setInt64(index, toEpochInUnit(spec, value, rowNumber));
      case 'string': return this.setText(index, toText(spec, value, rowNumber));
    }
  }

  /** The caller has checked the column takes nulls. */
  setNull(index: number): void {
    this.nullCount++;
    if (this.offsets) this.offsets[index + 1] = this.byteLength;
  }

  setInt64(index: number, value: bigint): void {
    this.validity[index >> 3]! |= 1 << (index & 7);
    this.int64![index] = value;
  }

  /** An int64 (or a timestamp in the column's unit) that is a safe integer, stored without making a BigInt. */
  setSafeInteger(index: number, value: number): void {
    if (!LITTLE_ENDIAN) return this.setInt64(index, BigInt(value));
    this.validity[index >> 3]! |= 1 << (index & 7);
    // Exact for safe integers: the low half is value mod 2^32, the high half floor(value / 2^32) (division
    // by a power of two is exact), which for negatives gives the two's complement halves.
    this.int64Halves![2 * index] = value >>> 0;
    this.int64Halves![2 * index + 1] = Math.floor(value / TWO_TO_32);
  }

  setInt32(index: number, value: number): void {
    this.validity[index >> 3]! |= 1 << (index & 7);
    this.int32![index] = value;
  }

  setBoolean(index: number, value: boolean): void {
    this.validity[index >> 3]! |= 1 << (index & 7);
    if (value) this.bits![index >> 3]! |= 1 << (index & 7);
  }

  setText(index: number, text: string): void {
    this.setTextIn(index, text, 0, text.length);
  }

  /** setText of `text.slice(start, end)`, copied from the text in place (no string made for a short ASCII one). */
  setTextIn(index: number, text: string, start: number, end: number): void {
    this.validity[index >> 3]! |= 1 << (index & 7);
    const length = end - start;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit.
    const worst = this.byteLength + length * 3;
    if (worst > this.bytes.length) {
      const grown = new Uint8Array(Math.max(worst, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.byteLength));
      this.bytes = grown;
    }
    if (length <= SHORT_TEXT && copyAscii(text, start, end, this.bytes, this.byteLength)) this.byteLength += length;
    else this.byteLength += encoder.encodeInto(start === 0 && end === text.length ? text : text.slice(start, end), this.bytes.subarray(this.byteLength)).written;
    this.offsets![index + 1] = this.byteLength;
  }

  /**
   * Takes back the value or null last set at `index` (the slot of a row not ended yet), leaving the slot as
   * it was before: the fast path writes a row's values as it reads them and gives up some rows midway.
   */
  unset(index: number): void {
    const byte = index >> 3;
    const bit = 1 << (index & 7);
    if (this.validity[byte]! & bit) {
      this.validity[byte]! &= ~bit;
      if (this.bits) this.bits[byte]! &= ~bit;
    } else this.nullCount--;
    // A string slot starts where the row before it ended.
    if (this.offsets) this.byteLength = this.offsets[index]!;
  }

  reset(): void {
    this.validity.fill(0);
    this.bits?.fill(0);
    this.nullCount = 0;
    this.byteLength = 0;
  }
}

/**
 * The rows of one batch. A producer that hands a batch on may reuse it once the next one is asked for, so
 * a consumer copies what it keeps before asking (arrow-batch.ts copies it into an Arrow IPC stream).
 */
export class ColumnBatch {
  readonly columns: ColumnBuffer[];
  length = 0;

  constructor(readonly schema: TableSchema, readonly capacity: number) {
    this.columns = schema.columns.map((spec) => new ColumnBuffer(spec, capacity));
  }

  get full(): boolean {
    return this.length >= this.capacity;
  }

  /** Adds one typed Row; `rowNumber` (1-based, within the output) is only for error messages. */
  pushRow(row: Row, rowNumber: number): void {
    for (const column of this.columns) column.setCell(this.length, row[column.spec.name], rowNumber);
    this.length++;
  }

  /** Closes a row whose every column was set at index `length`. */
  endRow(): void {
    this.length++;
  }

  reset(): void {
    for (const column of this.columns) column.reset();
    this.length = 0;
  }
}

/** Rows handed to the sinks as column batches instead of one object per row (only Parquet takes them). */
export interface ColumnBatches {
  readonly batches: AsyncIterable<ColumnBatch>;
}

export function isColumnBatches(input: object): input is ColumnBatches {
  return 'batches' in input;
}
