/**
 * Arrow IPC stream messages (the Arrow columnar format, Schema.fbs and Message.fbs, metadata version V5)
 * for the column types chatport writes, so that the Parquet writer is fed without loading apache-arrow.
 * A message is encapsulated as 0xFFFFFFFF, the int32 length of its metadata (padded to 8 bytes), the
 * FlatBuffers Message, then its body; a stream ends with 0xFFFFFFFF and a zero length.
 */
import type { ColumnType, TableSchema } from '../schema.js';
import { fb, finishFlatBuffer, type FbTable } from './flatbuffer.js';

const METADATA_V5 = 4;
const HEADER_SCHEMA = 1;
const HEADER_RECORD_BATCH = 3;
const TYPE_INT = 2;
const TYPE_UTF8 = 5;
const TYPE_BOOL = 6;
const TYPE_TIMESTAMP = 10;
const UNIT_MILLISECOND = 1;
const UNIT_MICROSECOND = 2;
const CONTINUATION = 0xffffffff;

export const END_OF_STREAM = new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** The Type union's tag and table for a column type. */
function arrowType(type: ColumnType): [tag: number, table: FbTable] {
  switch (type) {
    case 'int64': return [TYPE_INT, fb.table(fb.i32(64), fb.bool(true))];
    case 'int32': return [TYPE_INT, fb.table(fb.i32(32), fb.bool(true))];
    case 'boolean': return [TYPE_BOOL, fb.table()];
    case 'string': return [TYPE_UTF8, fb.table()];
    // The time zone makes the Parquet column TIMESTAMP(isAdjustedToUTC=true).
    case 'timestamp_ms': return [TYPE_TIMESTAMP, fb.table(fb.i16(UNIT_MILLISECOND), fb.string('UTC'))];
    case 'timestamp_us': return [TYPE_TIMESTAMP, fb.table(fb.i16(UNIT_MICROSECOND), fb.string('UTC'))];
  }
}

/** Message { version, header_type, header, bodyLength } framed for a stream (without its body). */
function encapsulatedMessage(headerType: number, header: FbTable, bodyLength: number): Uint8Array {
  const metadata = finishFlatBuffer(fb.table(fb.i16(METADATA_V5), fb.u8(headerType), header, fb.i64(bodyLength)));
  // finishFlatBuffer pads to 8 bytes, so the body after it starts 8-aligned.
  const framed = new Uint8Array(8 + metadata.length);
  const view = new DataView(framed.buffer);
  view.setUint32(0, CONTINUATION, true);
  view.setInt32(4, metadata.length, true);
  framed.set(metadata, 8);
  return framed;
}

/** The Schema message: one field per column, nullable unless the column says otherwise, no children. */
export function schemaMessage(schema: TableSchema): Uint8Array {
  const fields = schema.columns.map((c) => {
    const [tag, type] = arrowType(c.type);
    // Field { name, nullable, type_type, type, dictionary, children }: readers want `children`, even empty.
    return fb.table(fb.string(c.name), fb.bool(c.nullable !== false), fb.u8(tag), type, undefined, fb.tables([]));
  });
  return encapsulatedMessage(HEADER_SCHEMA, fb.table(undefined, fb.tables(fields)), 0);
}

/** A RecordBatch's layout: per column, its FieldNode; per buffer, its bytes in the body's order. */
export interface BatchLayout {
  length: number;
  /** [length, null_count] per column, flat. */
  nodes: number[];
  buffers: Uint8Array[];
}

const pad8 = (n: number) => (n + 7) & ~7;

/** The RecordBatch message and its body: each buffer 8-aligned, the padding zero. */
export function recordBatchMessage({ length, nodes, buffers }: BatchLayout): { metadata: Uint8Array; bodyLength: number; place(into: Uint8Array, at: number): void } {
  const spans: number[] = [];
  let bodyLength = 0;
  for (const buffer of buffers) {
    spans.push(bodyLength, buffer.length);
    bodyLength += pad8(buffer.length);
  }
  const header = fb.table(fb.i64(length), fb.int64Pairs(nodes), fb.int64Pairs(spans));
  return {
    metadata: encapsulatedMessage(HEADER_RECORD_BATCH, header, bodyLength),
    bodyLength,
    place(into, at) {
      buffers.forEach((buffer, i) => into.set(buffer, at + spans[2 * i]!));
    },
  };
}

/** A whole stream: the schema message, one record batch, the end-of-stream marker. */
export function ipcStream(schema: Uint8Array, batch: BatchLayout): Uint8Array {
  const message = recordBatchMessage(batch);
  const stream = new Uint8Array(schema.length + message.metadata.length + message.bodyLength + END_OF_STREAM.length);
  let at = 0;
  stream.set(schema, at);
  at += schema.length;
  stream.set(message.metadata, at);
  at += message.metadata.length;
  message.place(stream, at);
  stream.set(END_OF_STREAM, at + message.bodyLength);
  return stream;
}
