/** What an export run returns and prints. Pure. */
import type { OutputFormat } from '../../sinks/index.js';
import { formatDuration } from '../report.js';
import type { UnknownColumn } from './column-plan.js';
import type { Int64 } from '../../shared/int64.js';

export interface DatasetReport {
  dataset: string;
  jobId: Int64;
  jobType: string;
  /** Records in the export; always rowsWritten + rowsRejected + rowsOutsideWindow. */
  rowsRead: number;
  rowsWritten: number;
  rowsRejected: number;
  /** Rows of days outside the run's window: read, placed by their timestamp alone, neither written nor rejected (0 for a snapshot such as users). */
  rowsOutsideWindow: number;
  /** Columns the schema does not know, kept as strings. */
  unknownColumns: UnknownColumn[];
  /** Declared columns the export lacked, written as nulls. */
  missingColumns: string[];
  files: Array<{ name: string; url: string; rows: number; bytes: number; sha256: string }>;
  bytesWritten: number;
  download: { bytes: number; totalBytes: number | null; resumes: number; origin: string };
  /** One per UTC day written (`dt=…`), oldest first; a snapshot has one, labelled with the window's last day. */
  partitions: PartitionReport[];
  /**
   * Days written that had not ended when the export was asked for (`--date today`): their partitions hold
   * the day only up to then (manifest `details.dayComplete: false`), until the date is exported again.
   */
  openDays: string[];
  /**
   * Local NDJSON file of the rejected rows, when any were rejected: for a run of one partition, all of
   * them; for a window of several days, those with no readable day (`undated-<run>.ndjson`), each day's
   * own being in its partition's `rejectsFile`.
   */
  rejectsFile: string | null;
  durations: {
    /** From starting the export job until it was FINISHED. */
    jobWaitMs: number;
    /** Download, typing, writing and publishing. */
    transferMs: number;
  };
}

export interface PartitionReport {
  date: string;
  rowsWritten: number;
  files: number;
  manifestUrl: string;
  successUrl: string;
  /** This partition's rejects (the manifest's `details.rejectsFile`), null when none. */
  rejectsFile: string | null;
}

export type ExportStatus = 'succeeded' | 'completed-with-rejects';

export interface ExportReport {
  runId: string;
  status: ExportStatus;
  /** The window's last day (the label of snapshots); for `--date D`, D. */
  date: string;
  /** [since, until) in UTC and the days (partitions) it covers. */
  window: { since: string; until: string; days: string[] };
  to: string;
  format: OutputFormat;
  apiVersion: string | null;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  datasets: DatasetReport[];
  /**
   * Other dates of the run's datasets left without `_SUCCESS` (a run killed while publishing them, or one
   * publishing them now): readers ignore them until a run of that date publishes it again.
   */
  unfinishedDates: Array<{ dataset: string; date: string }>;
  totals: { rowsRead: number; rowsWritten: number; rowsRejected: number; rowsOutsideWindow: number; files: number; bytesWritten: number; balanced: boolean };
}

export function totalsOf(datasets: readonly DatasetReport[]): ExportReport['totals'] {
  const t = { rowsRead: 0, rowsWritten: 0, rowsRejected: 0, rowsOutsideWindow: 0, files: 0, bytesWritten: 0 };
  for (const d of datasets) {
    t.rowsRead += d.rowsRead;
    t.rowsWritten += d.rowsWritten;
    t.rowsRejected += d.rowsRejected;
    t.rowsOutsideWindow += d.rowsOutsideWindow;
    t.files += d.files.length;
    t.bytesWritten += d.bytesWritten;
  }
  return { ...t, balanced: datasets.every(isBalanced) };
}

export function isBalanced(d: DatasetReport): boolean {
  return d.rowsRead === d.rowsWritten + d.rowsRejected + d.rowsOutsideWindow;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

function windowText(window: ExportReport['window']): string {
  const days = window.days;
  return days.length === 1 ? days[0]! : `${days[0]} … ${days[days.length - 1]} (${days.length} days, [${window.since}, ${window.until}))`;
}

/** The table people read at the end of a run. */
export function formatExportReport(report: ExportReport): string {
  const header = ['dataset', 'job', 'read', 'written', 'rejected', 'outside', 'files', 'size', 'resumes', 'job wait', 'transfer'];
  const rows = report.datasets.map((d) => [
    d.dataset, String(d.jobId), String(d.rowsRead), String(d.rowsWritten), String(d.rowsRejected), String(d.rowsOutsideWindow), String(d.files.length),
    formatBytes(d.bytesWritten), String(d.download.resumes), formatDuration(d.durations.jobWaitMs), formatDuration(d.durations.transferMs),
  ]);
  const t = report.totals;
  rows.push(['total', '', String(t.rowsRead), String(t.rowsWritten), String(t.rowsRejected), String(t.rowsOutsideWindow), String(t.files), formatBytes(t.bytesWritten), '', '', formatDuration(report.durationMs)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const out = [
    `export ${report.runId} for ${windowText(report.window)} → ${report.to} (${report.format}): ${report.status}`,
    line(header),
    ...rows.map(line),
    t.balanced ? 'every row accounted for: read = written + rejected + outside the window' : 'ACCOUNTING MISMATCH: read ≠ written + rejected + outside the window',
  ];
  for (const d of report.datasets) {
    if (d.unknownColumns.length > 0) out.push(`${d.dataset}: columns not in the schema, kept as strings: ${d.unknownColumns.map((c) => c.source).join(', ')}`);
    if (d.missingColumns.length > 0) out.push(`${d.dataset}: declared columns missing from the export, written as nulls: ${d.missingColumns.join(', ')}`);
    if (d.rejectsFile) out.push(`${d.dataset}: rejects in ${d.rejectsFile}`);
    for (const day of d.openDays) out.push(`${d.dataset}: warning: dt=${day} was not over when its export was asked for: the partition holds the day only up to then (manifest dayComplete: false); export the date again once it is over`);
    if (d.rowsOutsideWindow > 0) out.push(`${d.dataset}: outside the window (other days, not written): ${d.rowsOutsideWindow}`);
    for (const p of d.partitions) out.push(`${d.dataset} dt=${p.date}: ${p.rowsWritten} rows, manifest ${p.manifestUrl}${p.rejectsFile && p.rejectsFile !== d.rejectsFile ? `, rejects in ${p.rejectsFile}` : ''}`);
  }
  for (const u of report.unfinishedDates)
    out.push(`${u.dataset}: warning: dt=${u.date} has no _SUCCESS: a run killed while publishing it left it so (or one publishes it now); readers ignore it until that date is exported again (--date ${u.date})`);
  if (report.apiVersion) out.push(`server API version ${report.apiVersion}`);
  return `${out.join('\n')}\n`;
}
