/**
 * Parsed export records → column batches for the Parquet writer: the columnar fast path. Each record is
 * typed straight into the batch by FastRowTyper (a plain CSV line from its unsplit text, or else built into
 * its record and typed as one); a record it cannot vouch for takes the exact path
 * (typeRecord, as typed-rows.ts does), whose row is put into the batch with the sinks' checks, or whose
 * reject is written. Counts and rejects are the exact path's, record for record.
 */
import { isPlainCsvLine, isUnparseable, type LineItem, type SourceItem, type SourceRecord } from '../../formats/index.js';
import { ColumnBatch, type ColumnBatches } from '../../sinks/index.js';
import type { ColumnPlan } from './column-plan.js';
import { FastRowTyper, NEEDS_EXACT_PATH, OUTSIDE_WINDOW } from './fast-row.js';
import { OUTSIDE, Rejected, TypedSource } from './typed-source.js';
import type { RowCounts, TypedRowsOptions } from './typed-rows.js';

export interface TypedBatches {
  plan: ColumnPlan;
  rows: ColumnBatches;
  counts: RowCounts;
}

/**
 * Fixes the plan from the first readable record, then hands out batches of `batchRows` rows (the last one
 * shorter) lazily. A batch is refilled once the next one is asked for.
 */
export async function openTypedBatches(batches: AsyncIterator<LineItem[]>, options: TypedRowsOptions & { batchRows: number }): Promise<TypedBatches> {
  const source = await TypedSource.open(batches, options);
  return { plan: source.plan, rows: { batches: typedBatches(source, options.batchRows) }, counts: source.counts };
}

async function* typedBatches(source: TypedSource, batchRows: number): AsyncGenerator<ColumnBatch> {
  const batch = new ColumnBatch(source.plan.schema, batchRows);
  const typer = new FastRowTyper(source.plan, source.options.window);
  let rowsBefore = 0;
  try {
    do {
      source.throwIfAborted();
      for (; source.at < source.pending.length; source.at++) {
        const item = source.pending[source.at]!;
        source.counts.read++;
        // A promise only where a reject or the exact path's row is written: an await per row costs more than typing it.
        let written: Promise<void> | undefined;
        if (isPlainCsvLine(item)) {
          const outcome = typer.typeLine(item, batch);
          if (outcome === OUTSIDE_WINDOW) source.counts.outside++;
          else if (outcome === NEEDS_EXACT_PATH) written = typeItem(source, typer, item.from.item(item), batch, rowsBefore);
        } else written = typeItem(source, typer, item, batch, rowsBefore);
        if (written) await written;
        if (batch.full) {
          // Past the yield the batch is refilled, so its row count is taken first.
          rowsBefore += batch.length;
          yield batch;
          batch.reset();
        }
      }
    } while (await source.nextBatch());
    if (batch.length > 0) yield batch;
  } finally {
    await source.close();
  }
}

/** One parsed item: rejected if unparseable, else typed by the fast typer, or by the exact path when it cannot vouch for it. */
function typeItem(source: TypedSource, typer: FastRowTyper, item: SourceItem, batch: ColumnBatch, rowsBefore: number): Promise<void> | undefined {
  if (isUnparseable(item)) return source.rejectUnparseable(item);
  const outcome = typer.type(item.record, batch, rowsBefore + batch.length + 1);
  if (outcome === OUTSIDE_WINDOW) source.counts.outside++;
  else if (outcome === NEEDS_EXACT_PATH) return takeExactPath(source, item, batch, rowsBefore + batch.length + 1);
  return undefined;
}

async function takeExactPath(source: TypedSource, item: SourceRecord, batch: ColumnBatch, rowNumber: number): Promise<void> {
  const outcome = source.exactOutcome(item);
  if (outcome === OUTSIDE) source.counts.outside++;
  else if (outcome instanceof Rejected) await source.reject(outcome.line, outcome.day);
  else batch.pushRow(outcome, rowNumber);
}
