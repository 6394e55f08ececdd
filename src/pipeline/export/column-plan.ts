/**
 * Binds the declared schema of a dataset to the columns an export actually has, and types each record
 * with it. Pure.
 *
 * The output schema is fixed before the first file is written (Parquet needs it up front), from the
 * first record: declared columns in declared order, then columns the schema does not know, kept as
 * strings. Declared columns the export lacks stay in the output as nulls and are reported.
 */
import { clipText } from '../../formats/index.js';
import { ChatportError } from '../../shared/errors.js';
import { PARTITION_COLUMN, type ColumnSpec, type Row, type TableSchema } from '../../sinks/index.js';
import { isNullValue, parseBoolean, parseInt32, parseInt64, parseText, parseTimestamp, type ParsedCell } from './parse-cell.js';
import { columnMatchKey, toOutputName, type DatasetSchema, type DeclaredType } from './schemas.js';

export type TimestampUnit = 'ms' | 'us';

export interface UnknownColumn {
  /** The export's own name. */
  source: string;
  /** The name in the output (snake_case, made unique). */
  name: string;
}

interface Binding {
  /** Key in the parsed record; undefined when the export lacks the column. */
  key: string | undefined;
  column: ColumnSpec;
  parse: (value: unknown) => ParsedCell;
}

export interface ColumnPlan {
  /** What the sinks write. */
  schema: TableSchema;
  unknownColumns: UnknownColumn[];
  /** Output names of declared columns absent from the export's first record (written as nulls there). */
  missingColumns: string[];
  readonly bindings: readonly Binding[];
  /**
   * Those declared columns by match key: an NDJSON export may leave a null out, so a later record can
   * still carry one of them, and its value has a column waiting.
   */
  readonly lateColumns: ReadonlyMap<string, ColumnSpec & { parse: Binding['parse'] }>;
  /** Record keys the plan knows, to spot keys that appear only in later records. */
  readonly knownKeys: ReadonlySet<string>;
}

/** Why one value of a record could not be typed. */
export interface RejectReason {
  /** Output column. */
  column: string;
  /** The export's field, as in the record. */
  field: string;
  /** The value as read (clipped to 200 characters). */
  value: unknown;
  expected: string;
}

export type TypedRecord = { ok: true; row: Row } | { ok: false; reasons: RejectReason[] };

const PARSERS: Record<Exclude<DeclaredType, 'timestamp'>, (value: unknown) => ParsedCell> = {
  int64: parseInt64,
  int32: parseInt32,
  boolean: parseBoolean,
  string: parseText,
};

function clip(value: unknown): unknown {
  return typeof value === 'string' && value.length > 200 ? `${clipText(value, 200)}…` : value;
}

/**
 * Plans the columns from the keys of the export's first record (its header, for CSV). Throws
 * DATA_INVALID when a required column is missing entirely: every row would be rejected, so the run
 * stops at once instead of after the whole download.
 */
export function planColumns(declared: DatasetSchema, recordKeys: readonly string[], timestampUnit: TimestampUnit, source: string): ColumnPlan {
  const byMatchKey = new Map<string, string>();
  for (const key of recordKeys) if (!byMatchKey.has(columnMatchKey(key))) byMatchKey.set(columnMatchKey(key), key);
  const used = new Set<string>();
  const bindings: Binding[] = [];
  const missingColumns: string[] = [];
  const lateColumns = new Map<string, ColumnSpec & { parse: Binding['parse'] }>();
  for (const c of declared.columns) {
    const key = byMatchKey.get(columnMatchKey(c.source));
    if (key === undefined) {
      if (c.nullable === false)
        throw new ChatportError(`${source}: the required column "${c.source}" (${c.type}) is missing; the export's columns are: ${recordKeys.join(', ') || '(none)'}`, {
          code: 'DATA_INVALID',
          details: { source, column: c.source, expected: c.type, found: [...recordKeys] },
        });
      missingColumns.push(c.name);
    } else used.add(key);
    const type = c.type === 'timestamp' ? (timestampUnit === 'ms' ? 'timestamp_ms' : 'timestamp_us') : c.type;
    const binding: Binding = { key, column: { name: c.name, type, nullable: c.nullable !== false }, parse: c.type === 'timestamp' ? parseTimestamp : PARSERS[c.type] };
    bindings.push(binding);
    if (key === undefined) lateColumns.set(columnMatchKey(c.source), { ...binding.column, parse: binding.parse });
  }
  // The partition column is taken too: an export's own `dt` becomes `dt_2`.
  const names = new Set([PARTITION_COLUMN, ...bindings.map((b) => b.column.name)]);
  const unknownColumns: UnknownColumn[] = [];
  for (const key of recordKeys) {
    if (used.has(key)) continue;
    used.add(key);
    let name = toOutputName(key);
    for (let n = 2; names.has(name); n++) name = `${toOutputName(key)}_${n}`;
    names.add(name);
    unknownColumns.push({ source: key, name });
    bindings.push({ key, column: { name, type: 'string', nullable: true }, parse: parseText });
  }
  const distinctColumns = declared.columns.filter((c) => c.distinct).map((c) => c.name);
  return { schema: { columns: bindings.map((b) => b.column), distinctColumns }, unknownColumns, missingColumns, bindings, lateColumns, knownKeys: new Set(recordKeys) };
}

/** Types one record: every value parsed by its column, every problem listed (not only the first). */
export function typeRecord(plan: ColumnPlan, record: Readonly<Record<string, unknown>>): TypedRecord {
  const row: Record<string, Row[string]> = {};
  let reasons: RejectReason[] | undefined;
  for (const b of plan.bindings) {
    const value = b.key === undefined ? undefined : record[b.key];
    if (isNullValue(value)) {
      if (b.column.nullable === false) (reasons ??= []).push({ column: b.column.name, field: b.key ?? b.column.name, value: clip(value ?? null), expected: `a value (${b.column.type}, required)` });
      row[b.column.name] = null;
      continue;
    }
    const parsed = b.parse(value);
    if (parsed.ok) row[b.column.name] = parsed.value;
    else (reasons ??= []).push({ column: b.column.name, field: b.key!, value: clip(value), expected: parsed.expected });
  }
  for (const key of Object.keys(record)) {
    if (plan.knownKeys.has(key) || isNullValue(record[key])) continue;
    const reason = typeLateValue(plan, key, record[key], row);
    if (reason) (reasons ??= []).push(reason);
  }
  return reasons ? { ok: false, reasons } : { ok: true, row };
}

/** A value under a key the first record lacked: typed into its declared column, or why it cannot be. */
function typeLateValue(plan: ColumnPlan, key: string, value: unknown, row: Record<string, Row[string]>): RejectReason | undefined {
  const column = plan.lateColumns.get(columnMatchKey(key));
  if (!column) return { column: toOutputName(key), field: key, value: clip(value), expected: 'only the columns of the first record (the output schema is fixed by then)' };
  if (row[column.name] !== null) return { column: column.name, field: key, value: clip(value), expected: 'one field per column (another field of this record names it too)' };
  const parsed = column.parse(value);
  if (!parsed.ok) return { column: column.name, field: key, value: clip(value), expected: parsed.expected };
  row[column.name] = parsed.value;
  return undefined;
}
