/**
 * Parsed export records → typed rows for the sinks, one object per row (the exact path; typed-batches.ts
 * is the columnar fast path for Parquet). Rows that cannot be typed (and records the format could not
 * read) go to the rejects file and are counted; rows whose day lies outside the run's window are counted
 * and left out, so that for every dataset rows read = rows written + rows rejected + rows outside.
 */
import { isUnparseable, sourceItemOf, type LineItem } from '../../formats/index.js';
import type { Row } from '../../sinks/index.js';
import type { ColumnPlan, TimestampUnit } from './column-plan.js';
import type { RejectsFile } from './rejects-file.js';
import type { DatasetSchema } from './schemas.js';
import { OUTSIDE, Rejected, TypedSource } from './typed-source.js';

export interface RowCounts {
  /** Records the export held (typed or not). */
  read: number;
  rejected: number;
  /** Rows whose day (their timestamp, read first) lies outside the window: not typed further, written or rejected. */
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
  /** The export's columns when its format names them apart from the records (a CSV header), even with no rows. */
  headerColumns?: () => readonly string[] | undefined;
  signal?: AbortSignal;
}

export interface TypedRows {
  plan: ColumnPlan;
  rows: AsyncIterable<Row>;
  counts: RowCounts;
}

/** Fixes the plan from the first readable record, then hands out the typed rows lazily. */
export async function openTypedRows(batches: AsyncIterator<LineItem[]>, options: TypedRowsOptions): Promise<TypedRows> {
  const source = await TypedSource.open(batches, options);
  return { plan: source.plan, rows: typedRows(source), counts: source.counts };
}

async function* typedRows(source: TypedSource): AsyncGenerator<Row> {
  try {
    do {
      for (; source.at < source.pending.length; source.at++) {
        source.throwIfAborted();
        const item = sourceItemOf(source.pending[source.at]!);
        source.counts.read++;
        if (isUnparseable(item)) {
          await source.rejectUnparseable(item);
          continue;
        }
        const outcome = source.exactOutcome(item);
        if (outcome === OUTSIDE) source.counts.outside++;
        else if (outcome instanceof Rejected) await source.reject(outcome.line, outcome.day);
        else yield outcome;
      }
    } while (await source.nextBatch());
  } finally {
    await source.close();
  }
}
