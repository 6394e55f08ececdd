/** What `chatport export` writes to the termination log (see ../termination-log.ts). */
import type { DatasetReport, ExportReport } from '../../pipeline/export/index.js';
import { isChatportError } from '../../shared/errors.js';
import { exitCodeFor } from '../../shared/exit-codes.js';
import { thrownMessage } from '../../shared/thrown-message.js';

export function successSummary(report: ExportReport, exitCode: number): Record<string, unknown> {
  return {
    command: 'export',
    status: report.status,
    exitCode,
    runId: report.runId,
    date: report.date,
    datasets: Object.fromEntries(report.datasets.map((d) => [d.dataset, { jobId: d.jobId, rows: d.rowsWritten, rejected: d.rowsRejected, files: d.files.length }])),
  };
}

export function failureSummary(error: unknown, context: { runId?: string; date?: string }, published: readonly DatasetReport[]): Record<string, unknown> {
  const code = isChatportError(error) ? error.code : 'INTERNAL';
  const exitCode = exitCodeFor(error);
  return {
    command: 'export',
    status: code === 'INTERRUPTED' ? 'interrupted' : 'failed',
    exitCode,
    ...context,
    error: { code, message: thrownMessage(error) },
    // A cleanup that could not reach the store says what it left and what the next run does.
    ...(isChatportError(error) && error.details.cleanup !== undefined ? { cleanup: error.details.cleanup } : {}),
    // Datasets published before the failure stay published (each is complete on its own).
    published: published.map((d) => d.dataset),
  };
}

/**
 * The failure of a run that had published some datasets already, saying which (with their dates) in its
 * details, so `--json` on stdout tells a scheduler what was replaced. Only chatport's errors carry details.
 */
export function withPublished(error: unknown, published: readonly DatasetReport[]): unknown {
  if (published.length > 0 && isChatportError(error))
    error.details.published = published.map((d) => ({ dataset: d.dataset, dates: d.partitions.map((p) => p.date) }));
  return error;
}
