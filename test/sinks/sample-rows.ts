/** A schema with every column type, and rows with the edge cases writers get wrong. */
import type { Row, TableSchema } from '../../src/sinks/index.js';

export const sampleSchema: TableSchema = {
  columns: [
    { name: 'id', type: 'int64', nullable: false },
    { name: 'channelId', type: 'int64' },
    { name: 'bodyLength', type: 'int32' },
    { name: 'isGuest', type: 'boolean' },
    { name: 'name', type: 'string' },
    { name: 'createdTime', type: 'timestamp_ms' },
    { name: 'editedTime', type: 'timestamp_us' },
  ],
};

const T0 = Date.UTC(2026, 10, 21, 10, 30, 0, 123);

/** Row i, deterministic. Every 5th row has nulls; some values exceed 2^53 or sit before 1970. */
export function sampleRow(i: number): Row {
  const nulls = i % 5 === 4;
  return {
    id: 9_007_199_254_740_993n + BigInt(i), // above 2^53: must not pass through a double
    channelId: nulls ? null : -42n - BigInt(i),
    bodyLength: nulls ? null : i * 3 - 7,
    isGuest: nulls ? null : i % 2 === 0,
    name: nulls ? null : i % 7 === 3 ? '' : `ünï "q", line\nbreak ${i}`,
    createdTime: nulls ? null : new Date(T0 + i * 1000),
    // epoch microseconds as bigint keeps the sub-millisecond part; one value before 1970
    editedTime: nulls ? null : i === 1 ? -1_500n : BigInt(T0) * 1000n + 456n + BigInt(i),
  };
}

export function sampleRows(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => sampleRow(i));
}

export async function* asyncRows(rows: Iterable<Row>): AsyncGenerator<Row> {
  for (const row of rows) yield row;
}

/** What an independent reader should find for row i: int64 as bigint, timestamps as epoch µs bigint. */
export function expectedRow(i: number): Record<string, unknown> {
  const row = sampleRow(i);
  const micros = (v: unknown) => (v === null ? null : v instanceof Date ? BigInt(v.getTime()) * 1000n : (v as bigint));
  return {
    ...row,
    channelId: row.channelId ?? null,
    createdTime: micros(row.createdTime),
    editedTime: micros(row.editedTime),
  };
}
