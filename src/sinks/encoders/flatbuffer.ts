/**
 * Just enough of a FlatBuffers writer for the Arrow IPC messages (arrow-ipc.ts): tables of integer and
 * boolean scalars, strings, vectors of tables and vectors of structs of two int64s (FieldNode, Buffer).
 *
 * Written front to back: a table comes first and the objects it points to after it (FlatBuffers offsets
 * point forward), each offset patched once its object has a position. Each table's vtable sits just
 * before it. Positions are aligned from the buffer's start, which the caller places 8-aligned.
 */

/** A table's field: an integer of 1, 2, 4 or 8 bytes, or a reference to another object. */
export type FbValue =
  | { kind: 'int'; bytes: 1 | 2 | 4 | 8; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'table'; fields: readonly (FbValue | undefined)[] }
  | { kind: 'tables'; items: readonly FbTable[] }
  | { kind: 'int64Pairs'; values: readonly number[] };
export type FbTable = Extract<FbValue, { kind: 'table' }>;

export const fb = {
  u8: (value: number): FbValue => ({ kind: 'int', bytes: 1, value }),
  bool: (value: boolean): FbValue => ({ kind: 'int', bytes: 1, value: value ? 1 : 0 }),
  i16: (value: number): FbValue => ({ kind: 'int', bytes: 2, value }),
  i32: (value: number): FbValue => ({ kind: 'int', bytes: 4, value }),
  /** A non-negative safe integer (lengths, offsets, counts). */
  i64: (value: number): FbValue => ({ kind: 'int', bytes: 8, value }),
  string: (value: string): FbValue => ({ kind: 'string', value }),
  /** Fields by their id: index i is field i, undefined for a field left out. */
  table: (...fields: (FbValue | undefined)[]): FbTable => ({ kind: 'table', fields }),
  tables: (items: readonly FbTable[]): FbValue => ({ kind: 'tables', items }),
  /** A vector of structs of two int64s, given flat: [a0, b0, a1, b1, …]. */
  int64Pairs: (values: readonly number[]): FbValue => ({ kind: 'int64Pairs', values }),
};

const TWO_TO_32 = 4294967296;
const OFFSET_BYTES = 4;
const utf8 = new TextEncoder();

type Reference = Exclude<FbValue, { kind: 'int' }>;

class Writer {
  bytes = new Uint8Array(512);
  view = new DataView(this.bytes.buffer);
  position = 0;
  /** Offsets written but not yet pointing at their object: the object is written after every earlier one. */
  readonly pending: { at: number; target: Reference }[] = [];

  reserve(length: number): void {
    if (this.position + length <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.position + length));
    grown.set(this.bytes);
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  /**
   * Moves on so that the byte `ahead` bytes on is at a multiple of `alignment` (the bytes skipped are
   * zero: the buffer starts zeroed and is written front to back).
   */
  align(alignment: number, ahead = 0): void {
    const skip = (alignment - ((this.position + ahead) % alignment)) % alignment;
    this.reserve(skip);
    this.position += skip;
  }

  int(at: number, bytes: 1 | 2 | 4 | 8, value: number): void {
    if (bytes === 1) this.view.setUint8(at, value);
    else if (bytes === 2) this.view.setInt16(at, value, true);
    else if (bytes === 4) this.view.setInt32(at, value, true);
    else {
      this.view.setUint32(at, value % TWO_TO_32, true);
      this.view.setUint32(at + 4, Math.floor(value / TWO_TO_32), true);
    }
  }

  append(bytes: 1 | 2 | 4 | 8, value: number): void {
    this.reserve(bytes);
    this.int(this.position, bytes, value);
    this.position += bytes;
  }

  /** An offset to `target`, filled in when `target` is written. */
  appendOffset(target: Reference): void {
    this.reserve(OFFSET_BYTES);
    this.pending.push({ at: this.position, target });
    this.position += OFFSET_BYTES;
  }
}

/** Where each present field goes within the table (after the 4-byte vtable offset), widest first. */
function tableLayout(fields: readonly (FbValue | undefined)[], tableStart: number): { at: number[]; size: number } {
  const at: number[] = new Array<number>(fields.length).fill(0);
  const widthOf = (f: FbValue) => (f.kind === 'int' ? f.bytes : OFFSET_BYTES);
  const order = fields.map((f, i) => i).filter((i) => fields[i] !== undefined).sort((a, b) => widthOf(fields[b]!) - widthOf(fields[a]!));
  let size = OFFSET_BYTES;
  for (const i of order) {
    const width = widthOf(fields[i]!);
    size += (width - ((tableStart + size) % width)) % width;
    at[i] = size;
    size += width;
  }
  return { at, size };
}

function writeTable(w: Writer, fields: readonly (FbValue | undefined)[]): number {
  const vtableBytes = 4 + 2 * fields.length;
  w.align(2);
  const vtableStart = w.position;
  // The table starts 4-aligned after its vtable; aligned to 8 when it holds an int64.
  const widest = fields.some((f) => f?.kind === 'int' && f.bytes === 8) ? 8 : 4;
  w.position += vtableBytes;
  w.align(widest);
  const tableStart = w.position;
  const { at, size } = tableLayout(fields, tableStart);
  w.position = vtableStart;
  w.append(2, vtableBytes);
  w.append(2, size);
  fields.forEach((f, i) => w.append(2, f === undefined ? 0 : at[i]!));
  w.align(widest);
  w.append(4, tableStart - vtableStart);
  w.reserve(size - OFFSET_BYTES);
  fields.forEach((f, i) => {
    if (f === undefined) return;
    if (f.kind === 'int') w.int(tableStart + at[i]!, f.bytes, f.value);
    else w.pending.push({ at: tableStart + at[i]!, target: f });
  });
  w.position = tableStart + size;
  return tableStart;
}

function writeObject(w: Writer, target: Reference): number {
  switch (target.kind) {
    case 'table': return writeTable(w, target.fields);
    case 'string': {
      const bytes = utf8.encode(target.value);
      w.align(4);
      w.reserve(4 + bytes.length + 1);
      const start = w.position;
      w.append(4, bytes.length);
      w.bytes.set(bytes, w.position);
      w.position += bytes.length + 1; // and the terminating zero
      return start;
    }
    case 'tables': {
      w.align(4);
      const start = w.position;
      w.append(4, target.items.length);
      for (const item of target.items) w.appendOffset(item);
      return start;
    }
    case 'int64Pairs': {
      // The elements, not the length before them, are 8-aligned.
      w.align(8, 4);
      const start = w.position;
      w.append(4, target.values.length / 2);
      for (const value of target.values) w.append(8, value);
      return start;
    }
  }
}

/** The FlatBuffer whose root is `root`. */
export function finishFlatBuffer(root: FbTable): Uint8Array {
  const w = new Writer();
  w.appendOffset(root);
  // Breadth first: every object lands after the offset that points to it.
  for (let next = 0; next < w.pending.length; next++) {
    const { at, target } = w.pending[next]!;
    const start = writeObject(w, target);
    w.view.setUint32(at, start - at, true);
  }
  w.align(8);
  return w.bytes.slice(0, w.position);
}
