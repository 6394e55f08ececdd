/**
 * The columnar fast path's typer: one record's values straight into a column batch, with no row object,
 * no object per cell and no BigInt for values that are safe integers. A value in a shape fast-cells.ts does
 * not take is read by its column's exact parser (parse-cell.ts) instead. A row it cannot vouch for as a
 * whole (a value the exact parser refuses, a missing required value, keys other than the first record's, a
 * row without its day) is left untouched in the batch and handed back, for typeRecord to decide exactly
 * as it always has.
 */
import type { CellValue, ColumnBatch, ColumnType } from '../../sinks/index.js';
import type { ColumnPlan } from './column-plan.js';
import { fastBoolean, fastInteger, fastTimestampMicros, microsToMillis } from './fast-cells.js';
import { isNullValue } from './parse-cell.js';
import type { RowWindow } from './typed-rows.js';

/** What became of a record. */
export const WRITTEN = 0;
export const OUTSIDE_WINDOW = 1;
export const NEEDS_EXACT_PATH = 2;
export type FastOutcome = typeof WRITTEN | typeof OUTSIDE_WINDOW | typeof NEEDS_EXACT_PATH;

// How a column's value of the current row is held until the row is known to be whole.
const NULL = 0;
const NUMBER = 1;
const BOOLEAN = 2;
const TEXT = 3;
/** A value the exact parser typed (a bigint beyond 2^53, an offset timestamp, a native JSON number…). */
const EXACT = 4;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Copies a record's planned values into `into`, by binding (undefined where the export lacks the column). */
type ValueReader = (record: Readonly<Record<string, unknown>>, into: unknown[]) => void;

/**
 * A ValueReader compiled once for the plan's keys. `record[key]` with the key in a variable is a lookup by
 * name on every cell (about a tenth of the export's CPU in a profile); a load by a literal name is cached
 * by V8 for the records' shape, which every record of a CSV export shares. The semantics are the same:
 * `r["k"]` is `r[key]` with key "k".
 */
function compileValueReader(keys: ReadonlyArray<string | undefined>): ValueReader {
  const body = keys.map((key, i) => `v[${i}] = ${key === undefined ? 'undefined' : `r[${JSON.stringify(key)}]`};`).join('\n');
  return new Function('r', 'v', body) as ValueReader;
}

export class FastRowTyper {
  private readonly columns: ColumnPlan['bindings'];
  private readonly types: ColumnType[];
  private readonly keyCount: number;
  private readonly states: Uint8Array;
  private readonly numbers: Float64Array;
  private readonly values: unknown[];
  /** The record's values of the row at hand, by binding, and the reader that fills them. */
  private readonly raw: unknown[];
  private readonly readValues: ValueReader;
  /** The window's column and bounds, as numbers and as bigints; -1 without a window. */
  private readonly dayIndex: number;
  private readonly sinceUs: number;
  private readonly untilUs: number;

  constructor(plan: ColumnPlan, private readonly window: RowWindow | undefined) {
    this.columns = plan.bindings;
    this.types = plan.bindings.map((b) => b.column.type);
    this.keyCount = plan.knownKeys.size;
    this.states = new Uint8Array(plan.bindings.length);
    this.numbers = new Float64Array(plan.bindings.length);
    this.values = new Array<unknown>(plan.bindings.length).fill(null);
    this.raw = new Array<unknown>(plan.bindings.length).fill(undefined);
    this.readValues = compileValueReader(plan.bindings.map((b) => b.key));
    this.sinceUs = window ? Number(window.sinceUs) : 0;
    this.untilUs = window ? Number(window.untilUs) : 0;
    // Bounds a double cannot hold exactly leave every row to the exact path (-1 with a window).
    const exactBounds = Number.isSafeInteger(this.sinceUs) && Number.isSafeInteger(this.untilUs);
    this.dayIndex = window && exactBounds ? plan.bindings.findIndex((b) => b.column.name === window.column) : -1;
  }

  /** Writes the record as row `batch.length` of the batch, or says why it did not. */
  type(record: Readonly<Record<string, unknown>>, batch: ColumnBatch, rowNumber: number): FastOutcome {
    if (!this.hasPlannedKeys(record) || !this.readRow(record)) return NEEDS_EXACT_PATH;
    const inWindow = this.inWindow();
    if (inWindow === undefined) return NEEDS_EXACT_PATH;
    if (!inWindow) return OUTSIDE_WINDOW;
    this.writeRow(batch, rowNumber);
    return WRITTEN;
  }

  /** As many keys as the first record had; readRow checks each of them is there. */
  private hasPlannedKeys(record: Readonly<Record<string, unknown>>): boolean {
    let count = 0;
    for (const _key in record) count++;
    return count === this.keyCount;
  }

  /** Types every value into the row's holders; false when the row needs the exact path. */
  private readRow(record: Readonly<Record<string, unknown>>): boolean {
    const columns = this.columns;
    const raw = this.raw;
    this.readValues(record, raw);
    for (let i = 0; i < columns.length; i++) {
      const binding = columns[i]!;
      if (binding.key === undefined) {
        // A declared column the export lacks (planColumns made sure it is nullable).
        this.states[i] = NULL;
        continue;
      }
      const value = raw[i];
      if (value === undefined) return false;
      if (isNullValue(value)) {
        if (binding.column.nullable === false) return false;
        this.states[i] = NULL;
      } else if (!(typeof value === 'string' && this.readText(i, value))) {
        const parsed = binding.parse(value);
        if (!parsed.ok) return false;
        this.states[i] = EXACT;
        this.values[i] = parsed.value;
      }
    }
    return true;
  }

  /** The fast readers; false leaves the value to the exact parser. */
  private readText(i: number, text: string): boolean {
    switch (this.types[i]!) {
      case 'string':
        this.states[i] = TEXT;
        this.values[i] = text;
        return true;
      case 'int64':
        return this.holdNumber(i, fastInteger(text));
      case 'int32': {
        const n = fastInteger(text);
        return n >= INT32_MIN && n <= INT32_MAX && this.holdNumber(i, n);
      }
      case 'timestamp_ms':
      case 'timestamp_us':
        return this.holdNumber(i, fastTimestampMicros(text));
      case 'boolean': {
        const b = fastBoolean(text);
        if (b === undefined) return false;
        this.states[i] = BOOLEAN;
        this.numbers[i] = b ? 1 : 0;
        return true;
      }
    }
  }

  private holdNumber(i: number, n: number): boolean {
    if (Number.isNaN(n)) return false;
    this.states[i] = NUMBER;
    this.numbers[i] = n;
    return true;
  }

  /** Whether the row's day lies in the window (true without one); undefined when the row has no day. */
  private inWindow(): boolean | undefined {
    const i = this.dayIndex;
    if (i < 0) return this.window ? undefined : true;
    const state = this.states[i];
    if (state === NUMBER) {
      const micros = this.numbers[i]!;
      return micros >= this.sinceUs && micros < this.untilUs;
    }
    const value = this.values[i];
    if (state !== EXACT || typeof value !== 'bigint') return undefined;
    return value >= this.window!.sinceUs && value < this.window!.untilUs;
  }

  private writeRow(batch: ColumnBatch, rowNumber: number): void {
    const index = batch.length;
    for (let i = 0; i < this.columns.length; i++) {
      const column = batch.columns[i]!;
      switch (this.states[i]) {
        case NULL: column.setNull(index); break;
        case NUMBER: this.writeNumber(i, index, batch); break;
        case BOOLEAN: column.setBoolean(index, this.numbers[i] === 1); break;
        case TEXT: column.setText(index, this.values[i] as string); break;
        default: column.setCell(index, this.values[i] as CellValue, rowNumber);
      }
      this.values[i] = null;
    }
    batch.endRow();
  }

  private writeNumber(i: number, index: number, batch: ColumnBatch): void {
    const n = this.numbers[i]!;
    const type = this.types[i];
    if (type === 'int32') batch.columns[i]!.setInt32(index, n);
    else batch.columns[i]!.setSafeInteger(index, type === 'timestamp_ms' ? microsToMillis(n) : n);
  }
}
