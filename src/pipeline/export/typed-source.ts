/**
 * What the row typer and the batch typer share: the export's items batch by batch, the column plan fixed
 * from the first readable record, the counts, the rejects, and the exact path for one record (its day,
 * then typeRecord), which is what every record went through before the columnar fast path and what it
 * still goes through whenever the fast path cannot vouch for a row.
 */
import { isUnparseable, sourceItemOf, type LineItem, type SourceRecord, type UnparseableRecord } from '../../formats/index.js';
import { ChatportError } from '../../shared/errors.js';
import type { Row } from '../../sinks/index.js';
import { planColumns, typeRecord, type ColumnPlan, type RejectReason } from './column-plan.js';
import { positionOf, type RejectLine } from './rejects-file.js';
import { dayOfMicros } from './utc-day.js';
import { isNullValue } from './parse-cell.js';
import type { RowCounts, RowWindow, TypedRowsOptions } from './typed-rows.js';

/** Without its timestamp a row of event data belongs to no day, so no partition can hold it. */
function undated(column: string): RejectReason {
  return { column, field: column, value: null, expected: `a timestamp: ${column} places the row in its day (dt=…)` };
}

/**
 * The columns of an export without a readable record: its header (a CSV with a header and no rows is an
 * empty day). With no header either (0 bytes, an empty gzip, blank lines) nobody can tell an empty day from
 * a broken export, and publishing it would replace a good date with an empty one, so the run stops.
 */
function headerOrRefuse(options: TypedRowsOptions): readonly string[] {
  const header = options.headerColumns?.();
  if (header) return header;
  throw new ChatportError(`${options.source} holds no header row and no readable record; nothing of ${options.stamp.dataset} was published`, {
    code: 'DATA_INVALID',
    details: { source: options.source },
  });
}

/** The exact path's verdict on one record: a row to write, a reject to write, or outside the window. */
export const OUTSIDE = Symbol('outside the window');
export class Rejected {
  /** `day`: the UTC day the row's timestamp places it in, when it can be read (a window files rejects by it). */
  constructor(
    readonly line: RejectLine,
    readonly day?: string,
  ) {}
}
export type ExactOutcome = Row | Rejected | typeof OUTSIDE;

export class TypedSource {
  readonly counts: RowCounts = { read: 0, rejected: 0, outside: 0 };
  plan!: ColumnPlan;
  /** The binding of the window's column, found on first use. */
  private dayBinding: ColumnPlan['bindings'][number] | undefined;
  /** The batch being taken and the next item in it (plain CSV lines unsplit: typed-batches.ts reads them). */
  pending: LineItem[] = [];
  at = 0;

  private constructor(
    private readonly batches: AsyncIterator<LineItem[]>,
    readonly options: TypedRowsOptions,
  ) {}

  /**
   * Reads up to the first readable record to fix the output schema (Parquet needs it before any row);
   * nothing more is read until the typer asks.
   */
  static async open(batches: AsyncIterator<LineItem[]>, options: TypedRowsOptions): Promise<TypedSource> {
    const source = new TypedSource(batches, options);
    const first = await source.firstRecord();
    source.plan = planColumns(options.schema, first ? Object.keys(first.record) : headerOrRefuse(options), options.timestampUnit, options.source);
    return source;
  }

  /** The first readable record, left pending (the typer starts with it); unparseable ones before it are rejected. */
  private async firstRecord(): Promise<SourceRecord | undefined> {
    for (;;) {
      if (this.at === this.pending.length && !(await this.nextBatch())) return undefined;
      // Built as a record here, so the plan sees its keys (and the typer starts with it).
      const item = (this.pending[this.at] = sourceItemOf(this.pending[this.at]!));
      if (!isUnparseable(item)) return item;
      this.at++;
      this.counts.read++;
      await this.rejectUnparseable(item);
    }
  }

  /** Takes the next batch of items; false at the end of the export. */
  async nextBatch(): Promise<boolean> {
    const step = await this.batches.next();
    if (step.done) return false;
    this.pending = step.value;
    this.at = 0;
    return true;
  }

  /** Stops the download (the writer gave up early, or the typer is done). */
  async close(): Promise<void> {
    await this.batches.return?.();
  }

  throwIfAborted(): void {
    if (this.options.signal?.aborted) throw this.options.signal.reason;
  }

  /**
   * The exact path for one record: its day first, then typeRecord. Every export holds every day, so a
   * row of another day is outside the window whatever its other columns hold: a bad row of a day long
   * exported must not count against every night. A row whose day cannot be known is typed, and rejected.
   */
  exactOutcome(item: SourceRecord): ExactOutcome {
    const { stamp, window } = this.options;
    if (window && this.isKnownOutside(item.record, window)) return OUTSIDE;
    const typed = typeRecord(this.plan, item.record);
    if (!typed.ok) return this.rejected({ ...stamp, ...positionOf(item.position), kind: 'untyped', reasons: typed.reasons, record: item.record }, window && this.dayMicros(item.record, window));
    if (!window) return typed.row;
    const time = typed.row[window.column];
    if (typeof time !== 'bigint') return new Rejected({ ...stamp, ...positionOf(item.position), kind: 'untyped', reasons: [undated(window.column)], record: item.record });
    if (time < window.sinceUs || time >= window.untilUs) return OUTSIDE;
    return typed.row;
  }

  /** Whether the record's day column alone places it outside the window. */
  private isKnownOutside(record: Readonly<Record<string, unknown>>, window: RowWindow): boolean {
    const time = this.dayMicros(record, window);
    return time !== undefined && (time < window.sinceUs || time >= window.untilUs);
  }

  /** The record's day column read alone (epoch microseconds), or undefined when it has none readable. */
  private dayMicros(record: Readonly<Record<string, unknown>>, window: RowWindow): bigint | undefined {
    const binding = (this.dayBinding ??= this.plan.bindings.find((b) => b.column.name === window.column));
    if (binding?.key === undefined) return undefined;
    const value = record[binding.key];
    if (isNullValue(value)) return undefined;
    const parsed = binding.parse(value);
    return parsed.ok && typeof parsed.value === 'bigint' ? parsed.value : undefined;
  }

  /** A reject of a row inside the window, with its day when known (its line then names that day). */
  private rejected(line: RejectLine, time: bigint | undefined): Rejected {
    if (time === undefined) return new Rejected(line);
    const day = dayOfMicros(time);
    return new Rejected({ ...line, date: day }, day);
  }

  /** Counts and writes a reject line (to its day's file, when known); stops the run past maxRejects. */
  async reject(line: RejectLine, day?: string): Promise<void> {
    const { rejects, maxRejects, source, stamp } = this.options;
    this.counts.rejected++;
    await rejects.write(line, day);
    if (this.counts.rejected > maxRejects)
      throw new ChatportError(`${source}: more than ${maxRejects} rows rejected (see ${rejects.path}); nothing of ${stamp.dataset} was published`, {
        code: 'REJECT_LIMIT_EXCEEDED',
        details: { source, rejected: this.counts.rejected, maxRejects, rejectsFile: rejects.path, ...(rejects.isWindow ? { rejectsFiles: rejects.stagedPaths } : {}) },
      });
  }

  rejectUnparseable(item: UnparseableRecord): Promise<void> {
    return this.reject({ ...this.options.stamp, ...positionOf(item.position), kind: 'unparseable', reasons: [{ message: item.unparseable.message, expected: item.unparseable.expected }], record: item.unparseable.raw });
  }
}
