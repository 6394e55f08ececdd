/**
 * The nightly analytics export, end to end:
 *   0. finish what a killed run of its dates left half published (interrupted.ts), then refuse (exit 78) when
 *      a partition it would write already holds another format, published whole (format-guard.ts);
 *   1. start the export job of every dataset, then wait for all of them; a FAILED job ends the run
 *      (JOB_FAILED, exit 3) before anything is published;
 *   2. per dataset, one after the other: download the job's file (streamed, resumed with Range and If-Range,
 *      started over when the file changed midway), parse it (format sniffed), type every row against the
 *      declared schema (rejects to a file outside the data folder), keep the rows of the window's UTC days
 *      (event data; snapshots are written whole), write and publish each day through src/sinks (data,
 *      manifest, `_SUCCESS` last);
 *   3. return the report.
 * Each dataset and date is published as a whole or not at all; a dataset published before a later one
 * fails stays published (it is complete, with its own manifest and `_SUCCESS`).
 */
import { JobFailedError, type Job } from '../../api/index.js';
import { parseLineBatches, type FormatName, type LineItem } from '../../formats/index.js';
import { ChatportError, InputMissingError, interruptionSignal, isChatportError } from '../../shared/errors.js';
import { columnBatchRows, createDestination, noteCleanupFailure, writeExport, type ColumnBatches, type Destination, type Partition, type Row, type TableSchema, type WriteExportOptions } from '../../sinks/index.js';
import { partitionByDay } from './day-partitions.js';
import { removeSpillsOfKilledRuns } from '../../shared/spill-folders.js';
import { dayEnded, daysOf, describeWindow, type ExportWindow } from './export-window.js';
import { refuseOtherFormat } from './format-guard.js';
import { finishInterruptedPublications, unfinishedOtherDates } from './interrupted.js';
import { damagedExportFile, exportFromZeroOnChange, openExportDownload } from './download.js';
import { startExportJob } from './start-export.js';
import { normalizeExportDeps, normalizeExportOptions, type NormalizedExportOptions, type RunExportDeps, type RunExportOptions } from './options.js';
import { RejectsFile, rejectsPathFor } from './rejects-file.js';
import { isBalanced, totalsOf, type DatasetReport, type ExportReport, type PartitionReport } from './report.js';
import { DATASET_SCHEMAS, type ExportDataset } from './schemas.js';
import { openTypedBatches } from './typed-batches.js';
import { openTypedRows, type RowWindow, type TypedRows, type TypedRowsOptions } from './typed-rows.js';

type Deps = ReturnType<typeof normalizeExportDeps>;

interface FinishedJob {
  dataset: ExportDataset;
  job: Job;
  waitMs: number;
  /** When the export was asked for: a day that had not ended then is in the export only up to then. */
  requestedAtMs: number;
}

export async function runExport(options: RunExportOptions, depsIn: RunExportDeps): Promise<ExportReport> {
  const opts = normalizeExportOptions(options);
  const deps = normalizeExportDeps(depsIn);
  const logger = deps.logger.child({ runId: opts.runId });
  const startedAtMs = deps.now();
  const interruption = interruptionSignal(options.signal);
  const { signal } = interruption;
  logger.info({ datasets: opts.datasets, window: describeWindow(opts.window), to: opts.to, format: opts.format }, 'export run started');
  try {
    signal.throwIfAborted();
    await removeSpillsOfKilledRuns(logger);
    const destination = deps.destination ?? createDestination(opts.to, { ...options.s3, signal });
    await finishInterruptedPublications(destination, partitionsOf(opts), opts.format, logger);
    const unfinishedDates = await unfinishedOtherDates(destination, opts.datasets, partitionsOf(opts), logger);
    await refuseOtherFormat(destination, partitionsOf(opts), opts.format);
    const finished = await startAndWaitForJobs(opts, { ...deps, logger }, signal);
    const datasets: DatasetReport[] = [];
    for (const f of finished) {
      signal.throwIfAborted();
      const report = await exportFromZeroOnChange(() => exportDataset(f, destination, opts, { ...deps, logger }, signal, options.onPartitionPublished), logger);
      datasets.push(report);
      options.onDatasetPublished?.(report);
    }
    const totals = totalsOf(datasets);
    const endedAtMs = deps.now();
    const report: ExportReport = {
      runId: opts.runId,
      status: totals.rowsRejected > 0 ? 'completed-with-rejects' : 'succeeded',
      date: opts.date,
      window: describeWindow(opts.window),
      to: opts.to,
      format: opts.format,
      apiVersion: deps.client.serverInfo.apiVersion ?? null,
      startedAt: new Date(startedAtMs).toISOString(),
      endedAt: new Date(endedAtMs).toISOString(),
      durationMs: endedAtMs - startedAtMs,
      datasets,
      unfinishedDates,
      totals,
    };
    logger.info({ status: report.status, totals, durationMs: report.durationMs }, 'export run finished');
    return report;
  } catch (error) {
    // Whatever a stop broke on the way (a cut download, a failed upload), the run ends as interrupted,
    // saying what a cleanup that did not finish left.
    if (signal.aborted) throw withCleanupOf(error, signal.reason);
    throw error;
  } finally {
    interruption.release();
  }
}

/** `stop` (the signal's reason) with the cleanup note `error` carries (write-export.ts), if any. */
function withCleanupOf(error: unknown, stop: unknown): unknown {
  if (isChatportError(error) && error.details.cleanup !== undefined && error !== stop) noteCleanupFailure(stop, error.details.cleanup);
  return stop;
}

/** Starts every export, then waits for all; the first failure stops the other waits. */
async function startAndWaitForJobs(opts: NormalizedExportOptions, deps: Deps, signal: AbortSignal | undefined): Promise<FinishedJob[]> {
  // A stop that came while the output was checked has fired already: the listener below would never hear it.
  signal?.throwIfAborted();
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const started: Array<{ dataset: ExportDataset; job: Job; at: number; requestedAtMs: number }> = [];
    for (const dataset of opts.datasets) {
      const requestedAtMs = deps.now();
      const job = await startExportJob(dataset, deps, controller.signal);
      started.push({ dataset, job, at: deps.now(), requestedAtMs });
    }
    return await Promise.all(
      started.map(async ({ dataset, job, at, requestedAtMs }) => {
        try {
          const done = await deps.client.jobs.wait(job.id, {
            initialIntervalMs: opts.job.pollIntervalMs,
            timeoutMs: opts.job.timeoutMs,
            signal: controller.signal,
            onPoll: (j) => deps.logger.debug({ dataset, jobId: j.id, state: j.state }, 'export job polled'),
          });
          if (done.state !== 'FINISHED') {
            // Nothing is published: the other datasets' jobs are left to finish on the platform unread.
            throw new JobFailedError(done.id, { type: done.type, ...(done.endedTime ? { endedTime: done.endedTime } : {}) });
          }
          deps.logger.info({ dataset, jobId: done.id }, 'export job finished');
          return { dataset, job: done, waitMs: deps.now() - at, requestedAtMs };
        } catch (error) {
          controller.abort(error);
          throw error;
        }
      }),
    );
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

async function exportDataset(
  finished: FinishedJob, destination: Destination, opts: NormalizedExportOptions, deps: Deps, signal: AbortSignal | undefined, onPublished: RunExportOptions['onPartitionPublished'],
): Promise<DatasetReport> {
  const { dataset, job } = finished;
  const startedAtMs = deps.now();
  const name = `${dataset} export (job ${job.id})`;
  const logger = deps.logger.child({ dataset, jobId: job.id });
  if (!job.file && !job._links?.file)
    throw new InputMissingError(`${name} is FINISHED but names no file (neither "file" nor "_links.file"); start the export again`, { dataset, jobId: job.id });

  const schema = DATASET_SCHEMAS[dataset];
  const download = openExportDownload(deps.client, job, { ...opts.download, ...(signal ? { signal } : {}), sleep: deps.sleep, logger, name });
  let header: readonly string[] | undefined;
  let format: FormatName | undefined;
  // Decimals as their source text: a column the schema does not know keeps them exactly, as strings.
  // Plain CSV lines come unsplit: the columnar fast path types them from their text (typed-batches.ts).
  const items = parseLineBatches(download.stream, { file: name, decimals: 'text', csv: { onColumns: (columns) => (header = columns) }, onFormat: (f) => (format = f) });
  // Without a record, a CSV's header, or a JSON array read to its closing bracket (`[]`), proves an empty
  // day; bytes that prove nothing (0 bytes, blank lines) are refused by the typer (typed-source.ts).
  const headerColumns = () => header ?? (format === 'json' ? schema.columns.map((c) => c.source) : undefined);
  const rejects = new RejectsFile(rejectsPathFor(opts.rejectsDir, dataset, schema.dayColumn ? daysOf(opts.window) : [opts.date], opts.runId, opts.rejectsInStore ? destination.sideFiles : undefined));
  let rejectsPublished = false;
  try {
    await rejects.discardLeftovers();
    const typed = await openDatasetRows(items, allRejectedDaysGuard(name, dataset, rejects, opts), {
      schema,
      timestampUnit: opts.timestampUnit,
      rejects,
      maxRejects: opts.maxRejects,
      source: name,
      headerColumns,
      stamp: { dataset, date: opts.date, runId: opts.runId },
      ...(schema.dayColumn ? { window: rowWindowOf(schema.dayColumn, opts.window) } : {}),
      ...(signal ? { signal } : {}),
    }, opts);
    if (typed.plan.unknownColumns.length > 0) logger.warn({ columns: typed.plan.unknownColumns }, 'export has columns the schema does not know; kept as strings');
    if (typed.plan.missingColumns.length > 0) logger.warn({ columns: typed.plan.missingColumns }, 'export lacks declared columns; written as nulls');
    const details = (date: string) => ({
      jobType: job.type,
      timestampUnit: opts.timestampUnit,
      // The run's figures, for its whole window (rowCount is this partition's).
      window: describeWindow(opts.window),
      partitionedBy: schema.dayColumn ?? null,
      snapshotAt: schema.dayColumn ? null : new Date(startedAtMs).toISOString(),
      // Whether the day had ended when the export was asked for (null for a snapshot): loaders may wait for true.
      dayComplete: schema.dayColumn ? dayEnded(date, finished.requestedAtMs) : null,
      rowsRead: typed.counts.read,
      rowsRejected: typed.counts.rejected,
      rowsOutsideWindow: typed.counts.outside,
      // This partition's own rejects; a window's rejects without a day are named apart.
      rejectsFile: rejects.publishedPathOf(date),
      ...(rejects.isWindow ? { undatedRejectsFile: rejects.undatedPublishedPath } : {}),
      unknownColumns: typed.plan.unknownColumns,
      missingColumns: typed.plan.missingColumns,
      download: { bytes: download.stats.bytes, resumes: download.stats.resumes },
    });
    const partitions: PartitionReport[] = [];
    const files: DatasetReport['files'] = [];
    const keepIfAllRejected = allRejectedGuard(name, dataset, typed.counts, rejects, opts);
    for await (const day of typed.days) {
      const beforeCommit = async (rows: number) => {
        keepIfAllRejected?.(day.date)(rows);
        await rejects.uploadDay(day.date);
      };
      const result = await writeExport(day.rows, { ...writeOptions(dataset, day.date, typed.plan.schema, String(job.id), destination, opts, deps, () => details(day.date)), beforeCommit });
      partitions.push({
        date: day.date, rowsWritten: result.manifest.rowCount, files: result.manifest.files.length, manifestUrl: result.manifestUrl, successUrl: result.successUrl, rejectsFile: rejects.publishedPathOf(day.date),
      });
      files.push(...result.manifest.files);
      // The day's data is published whatever becomes of its rejects.
      onPublished?.({ dataset, date: day.date });
      await rejects.publishDay(day.date);
    }
    const rejectsFile = (await rejects.publish()) ?? rejects.undatedPublishedPath;
    rejectsPublished = true;
    const report: DatasetReport = {
      dataset,
      jobId: job.id,
      jobType: job.type,
      rowsRead: typed.counts.read,
      rowsWritten: partitions.reduce((sum, p) => sum + p.rowsWritten, 0),
      rowsRejected: typed.counts.rejected,
      rowsOutsideWindow: typed.counts.outside,
      unknownColumns: typed.plan.unknownColumns,
      missingColumns: typed.plan.missingColumns,
      files,
      bytesWritten: files.reduce((sum, f) => sum + f.bytes, 0),
      download: { bytes: download.stats.bytes, totalBytes: download.stats.totalBytes ?? null, resumes: download.stats.resumes, origin: originOf(job) },
      partitions,
      openDays: schema.dayColumn ? partitions.map((p) => p.date).filter((date) => !dayEnded(date, finished.requestedAtMs)) : [],
      rejectsFile: rejectsFile ?? null,
      durations: { jobWaitMs: finished.waitMs, transferMs: deps.now() - startedAtMs },
    };
    if (!isBalanced(report))
      // A mismatch is a bug, never a rounding (conventions.md); the output is published, so say it loudly.
      logger.error({ rowsRead: report.rowsRead, rowsWritten: report.rowsWritten, rowsRejected: report.rowsRejected, rowsOutsideWindow: report.rowsOutsideWindow }, 'row accounting mismatch');
    return report;
  } catch (error) {
    if (error instanceof ChatportError && error.code === 'SINK_ROW_INVALID') logger.error({ err: error.toJSON() }, 'a typed row did not fit the sink schema (a bug in the row typer)');
    const failure = damagedExportFile(name, error);
    // On S3 the rejects of the days not published go aside in the store (the pod may be gone when someone looks).
    const aside = await rejects.keepAsideInStore().catch((cleanup: unknown) => {
      logger.warn({ err: cleanup }, 'keeping the rejects of the unpublished days aside in the store failed; they stay in the local folder only');
      return [];
    });
    if (aside.length > 0 && isChatportError(failure)) failure.details.rejectsInStore = aside;
    throw failure;
  } finally {
    await items.return?.();
    if (!rejectsPublished) await rejects.close().catch(() => undefined);
  }
}

/**
 * Without `--max-rejects`, a partition none of whose rows could be typed is not published over what the
 * date held: an export in a shape the schema does not fit (a platform revision, a damaged file) would
 * otherwise replace good output with an empty day, exit 2, on every date a backfill touches. This is the
 * check for a run of one partition (a snapshot, or a one-day window: the nightly case), made at its commit;
 * windows of several days have allRejectedDaysGuard. With `--max-rejects` the threshold is the user's.
 */
function allRejectedGuard(
  source: string, dataset: ExportDataset, counts: TypedRows['counts'], rejects: RejectsFile, opts: NormalizedExportOptions,
): ((date: string) => (rows: number) => void) | undefined {
  if (opts.maxRejects !== Infinity || rejects.isWindow) return undefined;
  return (date) => (rows) => {
    const inWindow = counts.read - counts.outside;
    if (rows > 0 || counts.rejected === 0 || counts.rejected < inWindow) return;
    throw allRejectedError(`${source}: all ${counts.rejected} rows of ${dataset} for ${date} were rejected (see ${rejects.path}); nothing was published, and what the date held before stays`, {
      source, rejected: counts.rejected, rowsRead: counts.read, rejectsFile: rejects.path,
    });
  };
}

/**
 * The same for a window of several days, checked once every row is spooled and before any day is written:
 * a day with rows, all of them rejected, stops the whole dataset, so no day of the window is replaced and
 * the run exits 65 naming the days. A window that keeps no row while rejecting some (every row without a
 * readable day, as when created_time changes shape) names every day: each would be emptied.
 */
function allRejectedDaysGuard(source: string, dataset: ExportDataset, rejects: RejectsFile, opts: NormalizedExportOptions): ((rowsByDay: ReadonlyMap<string, number>) => void) | undefined {
  if (opts.maxRejects !== Infinity || !rejects.isWindow) return undefined;
  return (rowsByDay) => {
    const nothingKept = [...rowsByDay.values()].every((rows) => rows === 0) && rejects.count > 0;
    const days = [...rowsByDay].filter(([date, rows]) => rows === 0 && (nothingKept || rejects.countOf(date) > 0)).map(([date]) => date);
    if (days.length === 0) return;
    const files = rejects.stagedPaths;
    throw allRejectedError(`${source}: every row of ${dataset} for ${days.join(', ')} was rejected (see ${files.join(', ')}); no day of the window was published, and what they held before stays`, {
      source, days, rejected: rejects.count, rejectsFiles: files,
    });
  };
}

function allRejectedError(message: string, details: Record<string, unknown>): ChatportError {
  return new ChatportError(`${message}. Fix the cause, or pass --max-rejects to publish such a date anyway`, { code: 'REJECT_LIMIT_EXCEEDED', details });
}

/** All rows in one partition: a snapshot (users, labelled with the window's last day) or a one-day window. */
async function* onePartition<R>(date: string, rows: R): AsyncGenerator<{ date: string; rows: R }> {
  yield { date, rows };
}

interface DatasetRows {
  plan: TypedRows['plan'];
  counts: TypedRows['counts'];
  days: AsyncIterable<{ date: string; rows: AsyncIterable<Row> | ColumnBatches }>;
}

/**
 * The typed rows of one dataset, day by day. Parquet of one partition (a snapshot, or a window of one day:
 * the nightly case) takes the columnar fast path (typed-batches.ts); other formats and windows of several
 * days (whose rows are spooled per day) take rows one by one.
 */
async function openDatasetRows(
  items: AsyncIterator<LineItem[]>, onSpooled: ((rowsByDay: ReadonlyMap<string, number>) => void) | undefined, typing: TypedRowsOptions, opts: NormalizedExportOptions,
): Promise<DatasetRows> {
  const days = daysOf(opts.window);
  const dayColumn = typing.schema.dayColumn;
  const batchRows = opts.format === 'parquet' ? columnBatchRows(opts.parquet) : undefined;
  if (batchRows !== undefined && (!dayColumn || days.length === 1)) {
    const typed = await openTypedBatches(items, { ...typing, batchRows });
    return { ...typed, days: onePartition(dayColumn ? days[0]! : opts.date, typed.rows) };
  }
  const typed = await openTypedRows(items, typing);
  return { ...typed, days: dayColumn ? partitionByDay(typed.rows, dayColumn, days, onSpooled) : onePartition(opts.date, typed.rows) };
}

function rowWindowOf(column: string, window: ExportWindow): RowWindow {
  return { column, sinceUs: BigInt(window.sinceMs) * 1000n, untilUs: BigInt(window.untilMs) * 1000n };
}

function writeOptions(
  dataset: ExportDataset, date: string, schema: TableSchema, jobId: string, destination: Destination, opts: NormalizedExportOptions, deps: Deps, details: () => Record<string, unknown>,
): WriteExportOptions {
  const apiVersion = deps.client.serverInfo.apiVersion;
  return {
    dataset,
    date,
    runId: opts.runId,
    format: opts.format,
    schema,
    destination,
    jobId,
    ...(apiVersion ? { apiVersion } : {}),
    ...(opts.maxFileBytes ? { maxFileBytes: opts.maxFileBytes } : {}),
    ...(opts.parquet ? { parquet: opts.parquet } : {}),
    ...(opts.text ? { text: opts.text } : {}),
    details,
    now: deps.now,
    // The sink names the dataset itself.
    logger: deps.logger.child({ jobId }),
  };
}

/** Every partition the run will write, per dataset: the window's days for event data, the label for snapshots. */
function partitionsOf(opts: NormalizedExportOptions): Partition[] {
  return opts.datasets.flatMap((dataset) => (DATASET_SCHEMAS[dataset].dayColumn ? daysOf(opts.window) : [opts.date]).map((date) => ({ dataset, date })));
}

/** The origin of the export file link: enough to tell where it came from, without its signature. */
function originOf(job: Job): string {
  try {
    return new URL(job.file ?? '').origin;
  } catch {
    return 'unknown';
  }
}
