/** What `chatport export` writes to the termination log (see ../termination-log.ts). */
import type { ExportReport } from '../../pipeline/export/index.js';
import { isChatportError } from '../../shared/errors.js';
import { ExitCode, exitCodeFor } from '../../shared/exit-codes.js';
import { failureCodeAndMessage } from '../failure.js';

export function successSummary(report: ExportReport, exitCode: number): Record<string, unknown> {
  return {
    command: 'export',
    status: report.status,
    exitCode,
    runId: report.runId,
    date: report.date,
    datasets: Object.fromEntries(report.datasets.map((d) => [d.dataset, { jobId: d.jobId, rows: d.rowsWritten, rejected: d.rowsRejected, files: d.files.length }])),
    // Other dates a killed run left unpublished: a monitor alerts on them (the run's own dates are fine).
    ...(report.unfinishedDates.length > 0 ? { unfinished: report.unfinishedDates.slice(0, 20) } : {}),
  };
}

/** `--incremental` with no whole day due (exit 99): the pod says it skipped, not nothing at all. */
export function nothingToDoSummary(message: string): Record<string, unknown> {
  return { command: 'export', status: 'nothing-to-do', exitCode: ExitCode.NOTHING_TO_DO, message };
}

/** The dates a run published of one dataset before it failed; `complete` when the dataset's every date was. */
export interface PublishedDates {
  dataset: string;
  dates: string[];
  complete: boolean;
}

/** Collects what a run publishes, date by date, so its failure can say what it replaced. */
export function publishedTracker() {
  const byDataset = new Map<string, PublishedDates>();
  const entry = (dataset: string) => byDataset.get(dataset) ?? byDataset.set(dataset, { dataset, dates: [], complete: false }).get(dataset)!;
  return {
    partition: ({ dataset, date }: { dataset: string; date: string }) => {
      const { dates } = entry(dataset);
      if (!dates.includes(date)) dates.push(date);
    },
    dataset: ({ dataset }: { dataset: string }) => void (entry(dataset).complete = true),
    list: (): PublishedDates[] => [...byDataset.values()],
  };
}

export function failureSummary(error: unknown, context: { runId?: string; date?: string }, published: readonly PublishedDates[]): Record<string, unknown> {
  // A window publishes its days in order, so the days published before a failure are a run of days: first,
  // last and count say it exactly within the log's 4 KiB, however long the backfill.
  const partly = published.filter((d) => !d.complete).map(({ dataset, dates }) => ({ dataset, days: dates.length, first: dates[0], last: dates.at(-1) }));
  const { code, message } = failureCodeAndMessage(error);
  const exitCode = exitCodeFor(error);
  return {
    command: 'export',
    status: code === 'INTERRUPTED' ? 'interrupted' : 'failed',
    exitCode,
    ...context,
    error: { code, message },
    // A cleanup that could not reach the store says what it left and what the next run does.
    ...(isChatportError(error) && error.details.cleanup !== undefined ? { cleanup: error.details.cleanup } : {}),
    // An S3 run's rejects of the days it did not publish, kept aside in the store: the pod's copy goes with it.
    ...(isChatportError(error) && Array.isArray(error.details.rejectsInStore) ? { rejectsInStore: (error.details.rejectsInStore as unknown[]).slice(0, 5) } : {}),
    // Datasets published before the failure stay published (each is complete on its own).
    published: published.filter((d) => d.complete).map((d) => d.dataset),
    // Days of a window published before a later day failed stay published too (each with its _SUCCESS).
    ...(partly.length > 0 ? { partlyPublished: partly } : {}),
  };
}

/**
 * The failure of a run that had published some datasets or days already, saying which (with their dates) in its
 * details, so `--json` on stdout tells a scheduler what was replaced. Only chatport's errors carry details.
 */
export function withPublished(error: unknown, published: readonly PublishedDates[]): unknown {
  if (published.length > 0 && isChatportError(error)) error.details.published = published.map(({ dataset, dates }) => ({ dataset, dates }));
  return error;
}
