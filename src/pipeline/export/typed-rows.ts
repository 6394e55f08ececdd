/**
 * Parsed export records → typed rows for the sinks. Rows that cannot be typed (and records the format
 * could not read) go to the rejects file and are counted; rows whose day lies outside the run's window are
 * counted and left out, so that for every dataset rows read = rows written + rows rejected + rows outside.
 */
import { isUnparseable, type SourceItem, type SourceRecord } from '../../formats/index.js';
import { ChatportError } from '../../shared/errors.js';
import type { Row } from '../../sinks/index.js';
import { planColumns, typeRecord, type ColumnPlan, type RejectReason, type TimestampUnit } from './column-plan.js';
import { positionOf, type RejectsFile } from './rejects-file.js';
import type { DatasetSchema } from './schemas.js';

export interface RowCounts {
  /** Records the export held (typed or not). */
  read: number;
  rejected: number;
  /** Typed rows whose timestamp lies outside the window (not written, not rejected). */
  outside: number;
}

/** Keep only rows whose `column` (typed: epoch microseconds) lies in [sinceUs, untilUs). */
export interface RowWindow {
  column: string;
  sinceUs: bigint;
  untilUs: bigint;
}

export interface TypedRowsOptions {
  schema: DatasetSchema;
  timestampUnit: TimestampUnit;
  rejects: RejectsFile;
  /** Stop the run (REJECT_LIMIT_EXCEEDED, exit 65) once more rows than this are rejected. */
  maxRejects: number;
  /** Names the export in errors and rejects. */
  source: string;
  /** Stamped on every reject line. */
  stamp: { dataset: string; date: string; runId: string };
  /** Event data: rows outside it are counted, not written; a row without the timestamp is rejected. */
  window?: RowWindow;
  signal?: AbortSignal;
}

export interface TypedRows {
  plan: ColumnPlan;
  rows: AsyncIterable<Row>;
  counts: RowCounts;
}

/** Without its timestamp a row of event data belongs to no day, so no partition can hold it. */
function undated(column: string): RejectReason {
  return { column, field: column, value: null, expected: `a timestamp: ${column} places the row in its day (dt=…)` };
}

/**
 * Reads up to the first readable record to fix the output schema (Parquet needs it before any row), then
 * hands out the typed rows lazily: nothing more is read than the writer asks for.
 */
export async function openTypedRows(batches: AsyncIterator<SourceItem[]>, options: TypedRowsOptions): Promise<TypedRows> {
  const counts: RowCounts = { read: 0, rejected: 0, outside: 0 };
  const { rejects, signal, window } = options;

  const reject = async (line: Parameters<RejectsFile['write']>[0]) => {
    counts.rejected++;
    await rejects.write(line);
    if (counts.rejected > options.maxRejects)
      throw new ChatportError(`${options.source}: more than ${options.maxRejects} rows rejected (see ${rejects.path}); nothing of ${options.stamp.dataset} was published`, {
        code: 'REJECT_LIMIT_EXCEEDED',
        details: { source: options.source, rejected: counts.rejected, maxRejects: options.maxRejects, rejectsFile: rejects.path },
      });
  };
  const rejectUnparseable = (item: Exclude<SourceItem, SourceRecord>) =>
    reject({ ...options.stamp, ...positionOf(item.position), kind: 'unparseable', reasons: [{ message: item.unparseable.message, expected: item.unparseable.expected }], record: item.unparseable.raw });

  // Batches are taken whole (records in them are synchronous work); the first readable record fixes the plan.
  let pending: SourceItem[] = [];
  let at = 0;
  let first: SourceRecord | undefined;
  while (first === undefined) {
    if (at === pending.length) {
      const step = await batches.next();
      if (step.done) break;
      pending = step.value;
      at = 0;
      continue;
    }
    const item = pending[at]!;
    if (!isUnparseable(item)) first = item; // rows() below starts with it
    else {
      at++;
      counts.read++;
      await rejectUnparseable(item);
    }
  }
  const plan = planColumns(options.schema, first ? Object.keys(first.record) : options.schema.columns.map((c) => c.source), options.timestampUnit, options.source);

  async function* rows(): AsyncGenerator<Row> {
    try {
      for (;;) {
        for (; at < pending.length; at++) {
          if (signal?.aborted) throw signal.reason;
          const item = pending[at]!;
          counts.read++;
          if (isUnparseable(item)) {
            await rejectUnparseable(item);
            continue;
          }
          const typed = typeRecord(plan, item.record);
          if (!typed.ok) await reject({ ...options.stamp, ...positionOf(item.position), kind: 'untyped', reasons: typed.reasons, record: item.record });
          else if (!window) yield typed.row;
          else {
            const time = typed.row[window.column];
            if (typeof time !== 'bigint') await reject({ ...options.stamp, ...positionOf(item.position), kind: 'untyped', reasons: [undated(window.column)], record: item.record });
            else if (time < window.sinceUs || time >= window.untilUs) counts.outside++;
            else yield typed.row;
          }
        }
        const step = await batches.next();
        if (step.done) return;
        pending = step.value;
        at = 0;
      }
    } finally {
      // Stops the download when the writer gives up early.
      await batches.return?.();
    }
  }

  return { plan, rows: rows(), counts };
}
