import type { ShardSpec, TrialSpec } from '../config/index.js';
import { ExitCode, exitCodeFor } from '../shared/exit-codes.js';
import { redactValue } from '../shared/secrets.js';
import { thrownMessage } from '../shared/thrown-message.js';
import { fitTable } from './fit-table.js';
import type { StageName } from './state/events.js';
import { formatVerification } from './verify/describe.js';
import type { VerificationSummary } from './verify/types.js';

/**
 * Per-stage counts. The invariant every report states: read = imported + duplicates + rejected + skipped
 * (+ pending while a run is unfinished). Breakdowns: `updated` ⊆ imported, `refused` ⊆ rejected,
 * `changed` ⊆ skipped.
 */
export interface StageCounts {
  read: number;
  /** Records the platform now holds as read: new ones, ones it already held identically, and updated ones. */
  imported: number;
  /** Of `imported`, records the platform held with other content and chatport updated (`mode: upsert`). */
  updated: number;
  /** Records whose source key was seen before in this stage with identical content: not sent again. */
  duplicates: number;
  /** Invalid records (failed validation or mapping) plus records the platform refused. */
  rejected: number;
  /** Of `rejected`, those the platform refused (isolated from FAILED jobs). */
  refused: number;
  /** Records a filter rule skipped on purpose, plus `changed` records. */
  skipped: number;
  /** Of `skipped`, records the platform holds with other content, not updated (insert-only mode): "changed, not applied". */
  changed: number;
  /** Users only, of `skipped`: source users matched to a platform user that already existed (`onExisting: match`). */
  matched?: number;
  /**
   * Of `skipped`: imported by an earlier run and deleted on the platform since; the platform skips their
   * used idempotency keys, so they are not sent (listed in skipped/<stage>.ndjson).
   */
  deleted?: number;
  /** Messages, of `imported`: replies in their root's reply thread (docs/threads.md). */
  replies?: number;
  /** Messages, of `imported`: replies whose root was not found, sent into the channel instead. */
  orphans?: number;
  /** Messages, of `replies`: replies an earlier run had left in the channel, deleted there once in their thread. */
  moved?: number;
  /**
   * Messages, of `replies` / `orphans`: found already where they go (a run after a finished one), not sent
   * by this run. Absent when the replies were settled by an earlier attempt (the journal keeps no such count).
   */
  repliesHeld?: number;
  orphansHeld?: number;
  /**
   * Accepted records not (yet) imported: a dry run or a validation sends nothing, an interrupted run stops
   * early. Zero in a completed run.
   */
  pending: number;
  chunks: number;
  jobs: { submitted: number; finished: number; failed: number };
  durationMs: number;
  /** Input bytes read so far (compressed bytes for gzip), and the total when every object's size is known. */
  bytesRead: number;
  bytesTotal?: number;
  /** Set once the platform answered 429 during the stage: how often, and the upload rate the client settled on. */
  rateLimit?: { answers: number; uploadsPerSecond?: number };
}

/** A problem worth telling that did not stop the run (a mapped field no record had). */
export interface RunWarning {
  stage: StageName;
  /** Where in the pipeline file (`stages.users.mapping.properties.dept`). */
  path: string;
  /** The source field concerned. */
  field: string;
  message: string;
}

export type RunStatus = 'succeeded' | 'completed-with-rejects' | 'failed' | 'interrupted' | 'dry-run';

export interface RunReport {
  runId: string;
  pipeline: string;
  status: RunStatus;
  attempt: number;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  apiVersion?: string;
  stages: Partial<Record<StageName, StageCounts>>;
  totals: Pick<StageCounts, 'read' | 'imported' | 'updated' | 'duplicates' | 'rejected' | 'refused' | 'skipped' | 'changed' | 'pending'> & { balanced: boolean };
  runDir: string;
  rejectsFile?: string;
  /** The folder listing the skipped records, a file per stage (`<stage>.ndjson`): present when a stage lists any (a trial's cut is not listed). */
  skippedDir?: string;
  /** Present when there is any. */
  warnings?: RunWarning[];
  /** Why the run stopped; `exitCode` is the process's (src/shared/exit-codes.ts). */
  error?: ReportedError;
  /** `import --verify`: what the platform holds against the source, after the stages, or why it could not be read (docs/verify.md). */
  verification?: VerificationSummary | VerificationNotDone;
  /** A trial run (`--limit`, `--sample`): what part of the input it took; the rest is counted as skipped. */
  trial?: TrialSpec & { description: string };
  /** A sharded run (`--shard I/N`): this report is one shard's; `chatport status --shards N` adds them up. */
  shard?: ShardSpec;
}

/** A failure as reports carry it: its code, its message (secrets scrubbed) and the exit code it gives. */
export interface ReportedError {
  code: string;
  message: string;
  exitCode?: number;
}

/** A verification that could not be done (the platform failed it, a signal): the import's data stands, its check does not. */
export interface VerificationNotDone {
  status: 'not-done';
  error: ReportedError;
}

/**
 * The exit code of a run that ended without a failure, as the CLI gives it: a report may resolve with the
 * platform differing from the source (`verification.status: 'differences'`, 65) while its `status` says
 * how the stages ended.
 */
export function exitCodeForReport(report: Pick<RunReport, 'verification' | 'totals'>): ExitCode {
  if (report.verification?.status === 'differences') return exitCodeForVerification(report.verification);
  return report.totals.rejected > 0 ? ExitCode.COMPLETED_WITH_REJECTS : ExitCode.OK;
}

/**
 * Differences found: 65 (the platform holds something else than the source), unless every one is a message
 * a run imported and the platform deleted since: 2, as for rejects (alert, don't retry). Neither the input
 * nor a rerun can bring such a message back under its taken key; a person decides (a skip rule accepts the
 * deletion, another source key imports it again), and a 65 every night would only say "fix the data".
 */
export function exitCodeForVerification(summary: Pick<VerificationSummary, 'counts' | 'deletedSinceImport'>): ExitCode {
  const total = Object.values(summary.counts).reduce((n, c) => n + c, 0);
  return total > 0 && total === summary.deletedSinceImport ? ExitCode.COMPLETED_WITH_REJECTS : ExitCode.DATA_INVALID;
}

export function reportedError(failure: unknown): ReportedError {
  const f = failure as { code?: string; message?: string };
  return redactValue({ code: typeof f.code === 'string' ? f.code : 'INTERNAL', message: thrownMessage(failure), exitCode: exitCodeFor(failure) }) as ReportedError;
}

export function emptyCounts(): StageCounts {
  return { read: 0, imported: 0, updated: 0, duplicates: 0, rejected: 0, refused: 0, skipped: 0, changed: 0, pending: 0, chunks: 0, jobs: { submitted: 0, finished: 0, failed: 0 }, durationMs: 0, bytesRead: 0 };
}

export function isBalanced(c: Pick<StageCounts, 'read' | 'imported' | 'duplicates' | 'rejected' | 'skipped' | 'pending'>): boolean {
  return c.read === c.imported + c.duplicates + c.rejected + c.skipped + c.pending;
}

export function sumTotals(stages: Partial<Record<StageName, StageCounts>>): RunReport['totals'] {
  const t = { read: 0, imported: 0, updated: 0, duplicates: 0, rejected: 0, refused: 0, skipped: 0, changed: 0, pending: 0 };
  for (const c of Object.values(stages)) for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += c[k] ?? 0;
  return { ...t, balanced: isBalanced(t) };
}

/** Per-stage counts and the accounting line, as people read them, within `width` when given. Pure: returns text. */
/** Columns a narrow terminal does without when every cell is 0. */
const DROPPABLE_WHEN_ZERO = new Set(['(updated)', 'duplicates', '(refused)', '(changed)', 'pending', 'skipped', 'rejected']);

export function formatStageTable(stages: RunReport['stages'], totals: RunReport['totals'], durationMs: number, width?: number): string {
  const header = ['stage', 'read', 'imported', '(updated)', 'duplicates', 'rejected', '(refused)', 'skipped', '(changed)', 'pending', 'chunks', 'jobs', 'time'];
  const counted = (c: Omit<RunReport['totals'], 'balanced'>) => [c.read, c.imported, c.updated, c.duplicates, c.rejected, c.refused, c.skipped, c.changed, c.pending].map(String);
  const rows: string[][] = [];
  for (const [stage, c] of Object.entries(stages)) rows.push([stage, ...counted(c), String(c.chunks), `${c.jobs.finished}/${c.jobs.submitted}`, formatDuration(c.durationMs)]);
  const t = totals;
  rows.push(['total', ...counted(t), '', '', formatDuration(durationMs)]);
  const accounting = t.balanced
    ? `every record accounted for: read = imported + duplicates + rejected + skipped${t.pending ? ' + pending' : ''}`
    : 'ACCOUNTING MISMATCH: read ≠ imported + duplicates + rejected + skipped + pending';
  return `${[...fitTable(header, rows, { width, droppableWhenZero: DROPPABLE_WHEN_ZERO }), accounting].join('\n')}\n`;
}

/** The report people read at the end of a run: a title, the stage table, where things are. Pure. */
export function formatReportTable(report: RunReport, width?: number): string {
  const out = [`run ${report.runId} (${report.pipeline}, attempt ${report.attempt}): ${report.status}`];
  if (report.trial) out.push(`TRIAL RUN: only ${report.trial.description}; the rest is counted as skipped`);
  const tail: string[] = [];
  for (const [stage, counts] of Object.entries(report.stages)) {
    const r = counts.rateLimit;
    if (r) tail.push(`${stage}: the platform rate-limited requests ${r.answers} times${r.uploadsPerSecond ? `; uploads paced to ${r.uploadsPerSecond} per second` : ''}`);
  }
  const matched = report.stages.users?.matched;
  if (matched) tail.push(`users: ${matched} matched to users the platform already had (not created; counted in skipped; their records use the platform user)`);
  for (const [stage, counts] of Object.entries(report.stages))
    if (counts.deleted) tail.push(`${stage}: ${counts.deleted} imported by an earlier run and deleted on the platform since (the platform skips their keys; counted in skipped, each listed with its key in skipped/${stage}.ndjson)`);
  const m = report.stages.messages;
  if (m?.replies || m?.orphans) tail.push(formatRepliesLine(m));
  for (const w of report.warnings ?? []) tail.push(`warning: ${w.message}`);
  if (report.totals.duplicates > 0) tail.push(`duplicates (not sent: another record has their key): ${report.runDir}/duplicates/`);
  if (report.skippedDir) tail.push(skippedFolderLine(report.skippedDir));
  if (report.error) tail.push(`stopped by ${report.error.code}: ${report.error.message}`);
  if (report.apiVersion) tail.push(`server API version ${report.apiVersion}`);
  if (report.rejectsFile && report.totals.rejected > 0) tail.push(`rejects: ${report.rejectsFile}`);
  tail.push(`run directory: ${report.runDir}`);
  const verified = formatRunVerification(report.verification);
  return `${out.join('\n')}\n${formatStageTable(report.stages, report.totals, report.durationMs, width)}${verified}${tail.join('\n')}\n`;
}

/** The report's line naming the skipped/ folder (also `chatport validate`'s). */
export function skippedFolderLine(folder: string): string {
  return `skipped (left out on purpose, each with its rule and reason): ${folder}/`;
}

/** Where the replies are, and how many of them this run sent (the rest were already there). */
function formatRepliesLine(m: StageCounts): string {
  const replies = m.replies ?? 0;
  const line = [`messages: ${replies} replies in their threads${sentNow(replies, m.repliesHeld)}`];
  if (m.orphans) line.push(`${m.orphans} whose root was not found in the channel (orphans)${sentNow(m.orphans, m.orphansHeld)}`);
  if (m.moved) line.push(`${m.moved} moved from their channel (an earlier run's orphans) into their threads`);
  return line.join('; ');
}

function sentNow(count: number, held: number | undefined): string {
  if (held === undefined || count === 0) return '';
  return held === 0 ? ', all sent now' : held === count ? ', all already there (none sent now)' : ` (${count - held} sent now, ${held} already there)`;
}

function formatRunVerification(v: RunReport['verification']): string {
  if (!v) return '';
  if (v.status === 'not-done') return `verification: NOT DONE (the import itself is complete) — ${v.error.code}: ${v.error.message}\n`;
  return formatVerification(v, []);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  return `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
}
