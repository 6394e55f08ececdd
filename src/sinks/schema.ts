/**
 * The declared schema of an output table and the values its rows may carry.
 *
 * Values per column type (anything else is a bug upstream, where rows are typed, and fails the write):
 * - `int64`: `bigint`, or a `number` that is a safe integer;
 * - `int32`: a `number` that is an integer within ±2^31;
 * - `boolean`: `boolean`;
 * - `string`: `string`;
 * - `timestamp_ms` / `timestamp_us`: UTC instants as a `Date`, a `number` of epoch milliseconds (a fraction
 *   carries microseconds), or a `bigint` of epoch microseconds. Never nanoseconds: Spark, Athena and DuckDB
 *   cannot read TIMESTAMP(NANOS).
 * `null` and `undefined` are nulls; a column declared `nullable: false` refuses them.
 */
export const COLUMN_TYPES = ['int64', 'int32', 'boolean', 'string', 'timestamp_ms', 'timestamp_us'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  /** Whether nulls are allowed. Default `true`. */
  readonly nullable?: boolean;
}

export interface TableSchema {
  readonly columns: readonly ColumnSpec[];
  /**
   * Columns whose values are (nearly) all different from row to row, such as ids and instants: the Parquet
   * writer gives them no dictionary, which it would fill only to drop it for plain values (docs/parquet.md).
   */
  readonly distinctColumns?: readonly string[];
}

export type CellValue = string | number | bigint | boolean | Date | null | undefined;
export type Row = Readonly<Record<string, CellValue>>;
