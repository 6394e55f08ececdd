/**
 * chatport writes the Arrow IPC stream that feeds the Parquet writer itself (encoders/arrow-ipc.ts). These
 * tests read it back with apache-arrow, an implementation written apart from it (a dev dependency only),
 * and the Parquet made from it with hyparquet.
 */
import { MessageHeader, MessageReader, tableFromIPC, Type, type Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { ColumnBatch } from '../../src/sinks/column-batch.js';
import { batchToIpc } from '../../src/sinks/encoders/arrow-batch.js';
import { schemaMessage } from '../../src/sinks/encoders/arrow-ipc.js';
import { createFileEncoder, type Row, type TableSchema } from '../../src/sinks/index.js';
import { readParquet } from './parquet-reader.js';
import { sampleSchema } from './sample-rows.js';

/** Every column type (sample-rows.ts), and a column never set and a required one that takes ''. */
const schema: TableSchema = {
  columns: [...sampleSchema.columns, { name: 'neverSet', type: 'string' }, { name: 'nöte', type: 'string', nullable: false }],
};

/** Row i: every 3rd has nulls; ids beyond 2^53, times before 1970, empty and non-ASCII texts. */
function row(i: number): Row {
  const nulls = i % 3 === 2;
  return {
    id: 2n ** 62n + BigInt(i) * 1_000_000_007n,
    channelId: nulls ? null : -(2n ** 53n) - BigInt(i),
    bodyLength: nulls ? null : i % 2 ? -i : 2_147_483_647 - i,
    isGuest: nulls ? null : i % 4 === 1,
    name: nulls ? null : i % 5 === 0 ? '' : `ünï 日本 🎉 ${i}`,
    createdTime: nulls ? null : new Date(-86_400_000 * 365 + i),
    editedTime: nulls ? null : -1_500n - BigInt(i),
    neverSet: null,
    nöte: i % 2 ? '' : 'x'.repeat(i % 70),
  };
}

const rows = (count: number) => Array.from({ length: count }, (_, i) => row(i));

function ipcOf(batchRows: Row[]): Uint8Array {
  const batch = new ColumnBatch(schema, Math.max(batchRows.length, 1));
  batchRows.forEach((r, i) => batch.pushRow(r, i + 1));
  return batchToIpc(batch, schemaMessage(schema));
}

/** Row i as apache-arrow reads it: int64 and timestamps as their stored bigint, in the column's unit. */
function readBack(table: Table, i: number): Row {
  return Object.fromEntries(
    schema.columns.map(({ name, type }) => {
      const column = table.getChild(name)!;
      if (!column.isValid(i)) return [name, null];
      const stored = type === 'int64' || type.startsWith('timestamp') ? (column.data[0]!.values as BigInt64Array)[i] : column.get(i);
      return [name, stored];
    }),
  );
}

/** What the reader should find for a row: timestamps in their column's unit. */
function expected(r: Row): Row {
  const createdTime = r.createdTime instanceof Date ? BigInt(r.createdTime.getTime()) : null;
  return { ...r, createdTime };
}

describe('the Arrow IPC stream (read back with apache-arrow)', () => {
  it('declares each column type, its unit, the UTC time zone and its nullability', () => {
    const table = tableFromIPC(ipcOf(rows(2)));
    const fields = table.schema.fields.map((f) => ({ name: f.name, nullable: f.nullable, type: f.type.typeId as Type, ...f.type }));
    expect(fields.map((f) => [f.name, f.nullable])).toEqual(schema.columns.map((c) => [c.name, c.nullable !== false]));
    expect(fields[0]).toMatchObject({ type: Type.Int, bitWidth: 64, isSigned: true });
    expect(fields[2]).toMatchObject({ type: Type.Int, bitWidth: 32, isSigned: true });
    expect(fields[3]).toMatchObject({ type: Type.Bool });
    expect(fields[4]).toMatchObject({ type: Type.Utf8 });
    expect(fields[5]).toMatchObject({ type: Type.Timestamp, unit: 1, timezone: 'UTC' });
    expect(fields[6]).toMatchObject({ type: Type.Timestamp, unit: 2, timezone: 'UTC' });
  });

  for (const count of [0, 1, 2, 7, 8, 9, 65_536])
    it(`keeps every value and null of a batch of ${count.toLocaleString('en')} rows`, () => {
      const written = rows(count);
      const table = tableFromIPC(ipcOf(written));
      expect(table.numRows).toBe(count);
      // A whole comparison of 65,536 rows is slow to diff; every 97th row and the last cover the batch.
      const checked = written.map((r, i) => i).filter((i) => count < 100 || i % 97 === 0 || i === count - 1);
      for (const i of checked) expect(readBack(table, i)).toEqual(expected(written[i]!));
      expect(table.getChild('neverSet')!.nullCount).toBe(count);
    });

  it('frames each message, starts each body buffer on an 8-byte boundary and ends the stream', () => {
    // 3 rows make odd sizes everywhere: 1-byte bitmaps, 12 bytes of int32, texts of odd lengths.
    const ipc = ipcOf(rows(3));
    const view = new DataView(ipc.buffer, ipc.byteOffset, ipc.byteLength);
    expect(view.getUint32(0, true)).toBe(0xffffffff);
    expect(view.getInt32(4, true) % 8).toBe(0);
    const reader = new MessageReader(ipc);
    expect(reader.readMessage()!.headerType).toBe(MessageHeader.Schema);
    const batch = reader.readMessage()!;
    expect(batch.headerType).toBe(MessageHeader.RecordBatch);
    const { buffers } = batch.header() as unknown as { buffers: { offset: number; length: number }[] };
    expect(buffers).toHaveLength(2 * 6 + 3 * 3);
    let end = 0;
    for (const { offset, length } of buffers) {
      expect(offset % 8).toBe(0);
      expect(offset).toBeGreaterThanOrEqual(end);
      end = offset + length;
    }
    expect(batch.bodyLength % 8).toBe(0);
    expect(batch.bodyLength - end).toBeLessThan(8);
    reader.readMessageBody(batch.bodyLength);
    expect(reader.readMessage()).toBeNull();
    expect([...ipc.subarray(-8)]).toEqual([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
  });
});

describe('Parquet written from column batches (read back with hyparquet)', () => {
  it('keeps the rows of several batches, the last one short', async () => {
    const written = rows(10);
    async function* batches() {
      const batch = new ColumnBatch(schema, 4);
      for (let i = 0; i < written.length; i++) {
        batch.pushRow(written[i]!, i + 1);
        if (batch.full || i === written.length - 1) {
          yield batch;
          batch.reset();
        }
      }
    }
    const chunks: Uint8Array[] = [];
    for await (const chunk of (await createFileEncoder('parquet', schema, { parquet: { batchRows: 4, rowGroupRows: 8 } })).encodeBatches!(batches())) chunks.push(chunk);
    const { rows: read, rowGroups } = await readParquet(Buffer.concat(chunks));
    expect(rowGroups).toEqual([8, 2]);
    const micros = (r: Row) => ({ ...r, createdTime: r.createdTime instanceof Date ? BigInt(r.createdTime.getTime()) * 1000n : null });
    expect(read).toEqual(written.map(micros));
  });

  it('cuts row groups at exactly the configured size even when batches straddle them (none rolls a batch late)', async () => {
    const written = rows(28);
    async function* batches() {
      const batch = new ColumnBatch(schema, 7);
      for (let i = 0; i < written.length; i++) {
        batch.pushRow(written[i]!, i + 1);
        if (batch.full) {
          yield batch;
          batch.reset();
        }
      }
    }
    const chunks: Uint8Array[] = [];
    for await (const chunk of (await createFileEncoder('parquet', schema, { parquet: { batchRows: 7, rowGroupRows: 10 } })).encodeBatches!(batches())) chunks.push(chunk);
    const { rows: read, rowGroups } = await readParquet(Buffer.concat(chunks));
    expect(rowGroups).toEqual([10, 10, 8]);
    expect(read.map((r) => r.id)).toEqual(written.map((r) => r.id));
  });
});
