/**
 * The columnar fast path's typer: one record's values straight into a column batch, with no row object,
 * no object per cell and no BigInt for values that are safe integers. A value in a shape fast-cells.ts does
 * not take is read by its column's exact parser (parse-cell.ts) instead. A row it cannot vouch for as a
 * whole (a value the exact parser refuses, a missing required value, keys other than the first record's, a
 * row without its day or outside the window) is taken out of the batch again and handed back, for
 * typeRecord to decide exactly as it always has. A plain CSV line is typed from its text (typeLine), by
 * field offsets, with no record built; a line it cannot vouch for is built into its record for type().
 */
import type { PlainCsvLine, PlainCsvLineSource } from '../../formats/index.js';
import type { CellValue, ColumnBatch, ColumnBuffer } from '../../sinks/index.js';
import type { ColumnPlan } from './column-plan.js';
import { fastBooleanIn, fastIntegerIn, fastTimestampMicrosIn, microsToMillis } from './fast-cells.js';
import { isNullValue } from './parse-cell.js';
import type { RowWindow } from './typed-rows.js';


/** What became of a record. */
export const WRITTEN = 0;
export const OUTSIDE_WINDOW = 1;
export const NEEDS_EXACT_PATH = 2;
export type FastOutcome = typeof WRITTEN | typeof OUTSIDE_WINDOW | typeof NEEDS_EXACT_PATH;

// What the row at hand did to a column's slot: nothing yet, a value or null written there (undone if the
// row is given up), or a value the exact parser typed (a bigint beyond 2^53, an offset timestamp, a native
// JSON number…), held and written only once the row is known to be whole, as setCell checks it.
const UNTOUCHED = 0;
const SET = 1;
const HELD = 2;

// A column's reader, chosen once per plan rather than by comparing its type's name at every cell.
const ABSENT = 0;
const TEXT = 1;
const INT64 = 2;
const INT32 = 3;
const TIMESTAMP_US = 4;
const TIMESTAMP_MS = 5;
const BOOLEAN = 6;

function kindOf(binding: ColumnPlan['bindings'][number]): number {
  if (binding.key === undefined) return ABSENT;
  switch (binding.column.type) {
    case 'string': return TEXT;
    case 'int64': return INT64;
    case 'int32': return INT32;
    case 'timestamp_us': return TIMESTAMP_US;
    case 'timestamp_ms': return TIMESTAMP_MS;
    case 'boolean': return BOOLEAN;
  }
}

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
  private readonly kinds: Uint8Array;
  private readonly required: Uint8Array;
  private readonly keyCount: number;
  /** What the row at hand did to each column's slot (UNTOUCHED, SET, HELD). */
  private readonly states: Uint8Array;
  /** HELD values of the row at hand, by binding. */
  private readonly held: unknown[];
  /** The record's values of the row at hand, by binding, and the reader that fills them. */
  private readonly raw: unknown[];
  private readonly readValues: ValueReader;
  /** The window's column and bounds, as numbers; -1 without a window. */
  private readonly dayIndex: number;
  private readonly sinceUs: number;
  private readonly untilUs: number;
  /** The row's day column in epoch microseconds, when a fast reader read it. */
  private dayUs = NaN;
  /** The CSV file whose plain lines typeLine reads, and each binding's field in its lines (-1: absent). */
  private lineSource: PlainCsvLineSource | undefined;
  private fieldOf = new Int32Array(0);
  /** Where each field of the line at hand starts and ends. */
  private fieldStarts = new Int32Array(0);
  private fieldEnds = new Int32Array(0);
  /** False when the file's lines cannot be read by field (columns other than the plan's keys). */
  private linesReadable = false;

  constructor(plan: ColumnPlan, private readonly window: RowWindow | undefined) {
    this.columns = plan.bindings;
    this.kinds = Uint8Array.from(plan.bindings, kindOf);
    this.required = Uint8Array.from(plan.bindings, (b) => (b.column.nullable === false ? 1 : 0));
    this.keyCount = plan.knownKeys.size;
    this.states = new Uint8Array(plan.bindings.length);
    this.held = new Array<unknown>(plan.bindings.length).fill(null);
    this.raw = new Array<unknown>(plan.bindings.length).fill(undefined);
    this.readValues = compileValueReader(plan.bindings.map((b) => b.key));
    this.sinceUs = window ? Number(window.sinceUs) : 0;
    this.untilUs = window ? Number(window.untilUs) : 0;
    // Bounds a double cannot hold exactly leave every row to the exact path (-1 with a window).
    const exactBounds = Number.isSafeInteger(this.sinceUs) && Number.isSafeInteger(this.untilUs);
    this.dayIndex = window && exactBounds ? plan.bindings.findIndex((b) => b.column.name === window.column) : -1;
  }

  /**
   * Writes the record as row `batch.length` of the batch, or says why it did not. Values go into the
   * batch as they are read (one pass, nothing held in between); a row given up after some of them is
   * taken out again, its slot as it was.
   */
  type(record: Readonly<Record<string, unknown>>, batch: ColumnBatch, rowNumber: number): FastOutcome {
    if (!this.hasPlannedKeys(record)) return NEEDS_EXACT_PATH;
    const index = batch.length;
    const outcome = this.writeRow(record, batch, index) ? this.windowOutcome() : NEEDS_EXACT_PATH;
    if (outcome === WRITTEN) {
      this.writeHeld(batch, index, rowNumber);
      batch.endRow();
    } else this.undoRow(batch, index);
    return outcome;
  }

  /** As many keys as the first record had; writeRow checks each of them is there. */
  private hasPlannedKeys(record: Readonly<Record<string, unknown>>): boolean {
    let count = 0;
    for (const _key in record) count++;
    return count === this.keyCount;
  }

  /** Types every value into slot `index` (or holds it); false when the row needs the exact path. */
  private writeRow(record: Readonly<Record<string, unknown>>, batch: ColumnBatch, index: number): boolean {
    const raw = this.raw;
    const states = this.states;
    this.readValues(record, raw);
    this.dayUs = NaN;
    for (let i = 0; i < raw.length; i++) {
      const column = batch.columns[i]!;
      if (this.kinds[i] === ABSENT) {
        // A declared column the export lacks (planColumns made sure it is nullable).
        column.setNull(index);
        states[i] = SET;
        continue;
      }
      const value = raw[i];
      if (value === undefined) return false;
      if (isNullValue(value)) {
        if (this.required[i] === 1) return false;
        column.setNull(index);
        states[i] = SET;
      } else if (typeof value === 'string' && this.writeField(i, value, 0, value.length, column, index)) states[i] = SET;
      else {
        const parsed = this.columns[i]!.parse(value);
        if (!parsed.ok) return false;
        states[i] = HELD;
        this.held[i] = parsed.value;
      }
    }
    return true;
  }

  /**
   * Types a plain CSV line (no quotes) straight from its text: the fields found by offset, no string made
   * for a number or a timestamp, no record object. Only when every value is one the fast readers take
   * (or an empty field, a null) is the row written; anything else (a wrong field count, a value the exact
   * parser must judge, a missing required value) is NEEDS_EXACT_PATH, the slot left as it was, and the
   * caller builds the record (`line.from.item`) for type() and the exact path: the line's text split at the
   * delimiter is exactly that record's values.
   */
  typeLine(line: PlainCsvLine, batch: ColumnBatch): FastOutcome {
    if (line.from !== this.lineSource) this.bindLines(line.from);
    if (!this.linesReadable || !this.findFields(line.plainLine, line.from.delimiter)) return NEEDS_EXACT_PATH;
    const index = batch.length;
    const written = this.writeLine(line.plainLine, batch, index);
    // No value of a line is held (nor a state kept), so its day is the one a fast reader read, or none.
    const outcome = written === this.fieldOf.length ? this.dayOutcome() : NEEDS_EXACT_PATH;
    if (outcome === WRITTEN) batch.endRow();
    else this.undoColumns(batch, index, written);
    return outcome;
  }

  /** Maps each binding to its field in the file's lines, once per file. */
  private bindLines(source: PlainCsvLineSource): void {
    const columns = source.columns;
    this.lineSource = source;
    this.fieldOf = Int32Array.from(this.columns, (b) => (b.key === undefined ? -1 : columns.indexOf(b.key)));
    this.fieldStarts = new Int32Array(columns.length);
    this.fieldEnds = new Int32Array(columns.length);
    // The record of a line has the file's columns as keys: type() takes it only when they are the plan's.
    const keyed = this.columns.every((b, i) => (b.key === undefined) === (this.fieldOf[i] === -1));
    this.linesReadable = keyed && columns.length === this.keyCount && source.delimiter.length > 0;
  }

  /** Finds the line's fields at the delimiter; false unless there are as many as the file's columns. */
  private findFields(text: string, delimiter: string): boolean {
    const starts = this.fieldStarts;
    const ends = this.fieldEnds;
    const last = starts.length - 1;
    let from = 0;
    for (let f = 0; f < last; f++) {
      const at = text.indexOf(delimiter, from);
      if (at === -1) return false;
      starts[f] = from;
      ends[f] = at;
      from = at + delimiter.length;
    }
    if (text.indexOf(delimiter, from) !== -1) return false;
    starts[last] = from;
    ends[last] = text.length;
    return true;
  }

  /** writeRow for a line's fields, in the bindings' order: the columns written, all of them unless a value is not fast. */
  private writeLine(text: string, batch: ColumnBatch, index: number): number {
    const fieldOf = this.fieldOf;
    this.dayUs = NaN;
    for (let i = 0; i < fieldOf.length; i++) {
      const column = batch.columns[i]!;
      const f = fieldOf[i]!;
      if (f === -1) {
        column.setNull(index);
        continue;
      }
      const start = this.fieldStarts[f]!;
      const end = this.fieldEnds[f]!;
      if (start === end) {
        // An empty field is a null (isNullValue('')).
        if (this.required[i] === 1) return i;
        column.setNull(index);
      } else if (!this.writeField(i, text, start, end, column, index)) return i;
    }
    return fieldOf.length;
  }

  /**
   * The fast readers on `text.slice(start, end)`, writing into the slot; false (the slot untouched) leaves
   * the value to the exact parser.
   */
  private writeField(i: number, text: string, start: number, end: number, column: ColumnBuffer, index: number): boolean {
    switch (this.kinds[i]) {
      case TEXT:
        column.setTextIn(index, text, start, end);
        return true;
      case INT64: {
        const n = fastIntegerIn(text, start, end);
        if (Number.isNaN(n)) return false;
        column.setSafeInteger(index, n);
        return true;
      }
      case INT32: {
        const n = fastIntegerIn(text, start, end);
        if (!(n >= INT32_MIN && n <= INT32_MAX)) return false;
        column.setInt32(index, n);
        return true;
      }
      case TIMESTAMP_US:
      case TIMESTAMP_MS: {
        const micros = fastTimestampMicrosIn(text, start, end);
        if (Number.isNaN(micros)) return false;
        if (i === this.dayIndex) this.dayUs = micros;
        column.setSafeInteger(index, this.kinds[i] === TIMESTAMP_MS ? microsToMillis(micros) : micros);
        return true;
      }
      case BOOLEAN: {
        const b = fastBooleanIn(text, start, end);
        if (b === undefined) return false;
        column.setBoolean(index, b);
        return true;
      }
      default:
        return false;
    }
  }

  /** WRITTEN, OUTSIDE_WINDOW, or NEEDS_EXACT_PATH when the row has no day the fast path can compare. */
  private windowOutcome(): FastOutcome {
    const i = this.dayIndex;
    if (i < 0 || this.states[i] !== HELD) return this.dayOutcome();
    const value = this.held[i];
    if (typeof value !== 'bigint') return NEEDS_EXACT_PATH;
    return value >= this.window!.sinceUs && value < this.window!.untilUs ? WRITTEN : OUTSIDE_WINDOW;
  }

  /** windowOutcome for a row whose day, if it has one, a fast reader read (dayUs), none held. */
  private dayOutcome(): FastOutcome {
    if (this.dayIndex < 0) return this.window ? NEEDS_EXACT_PATH : WRITTEN;
    if (Number.isNaN(this.dayUs)) return NEEDS_EXACT_PATH;
    return this.dayUs >= this.sinceUs && this.dayUs < this.untilUs ? WRITTEN : OUTSIDE_WINDOW;
  }

  private writeHeld(batch: ColumnBatch, index: number, rowNumber: number): void {
    const states = this.states;
    for (let i = 0; i < states.length; i++) {
      if (states[i] === HELD) {
        batch.columns[i]!.setCell(index, this.held[i] as CellValue, rowNumber);
        this.held[i] = null;
      }
      states[i] = UNTOUCHED;
    }
  }

  /** Takes the values of the first `count` columns out of slot `index` again (a line's, which keeps no states). */
  private undoColumns(batch: ColumnBatch, index: number, count: number): void {
    for (let i = 0; i < count; i++) batch.columns[i]!.unset(index);
  }

  /** Takes the row's values out of slot `index` again, so the exact path (or the next row) finds it empty. */
  private undoRow(batch: ColumnBatch, index: number): void {
    const states = this.states;
    for (let i = 0; i < states.length; i++) {
      if (states[i] === SET) batch.columns[i]!.unset(index);
      this.held[i] = null;
      states[i] = UNTOUCHED;
    }
  }
}
