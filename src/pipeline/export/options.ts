/** Options of `runExport`, each with its default, normalised once. */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ulid } from 'ulid';
import type { ChatportClient } from '../../api/index.js';
import { UsageError } from '../../shared/errors.js';
import { realNow, realSleep, type Now, type Sleep } from '../../shared/async.js';
import { createSilentLogger, type Logger } from '../../shared/logger.js';
import { formatS3Url, isS3Url, parseS3Url } from '../../shared/s3-location.js';
import { refuseFolderOnPseudoFs } from '../../shared/pseudo-fs.js';
import { MANIFESTS_FOLDER, OUTPUT_FORMATS, validatePartition, validateRunId, type Destination, type OutputFormat, type ParquetOptions, type GzipTextOptions, type S3DestinationOptions } from '../../sinks/index.js';
import type { TimestampUnit } from './column-plan.js';
import type { DownloadOptions } from './download.js';
import { DAY_MS, checkWindow, lastDayOf, windowOfDate, type ExportWindow } from './export-window.js';
import type { DatasetReport } from './report.js';
import { EXPORT_DATASETS, type ExportDataset } from './schemas.js';

export interface RunExportOptions {
  /** Which analytics exports to run; `all` on the command line is both, in this order. */
  datasets: readonly ExportDataset[];
  /** A local directory or `s3://bucket/prefix`. */
  to: string;
  format: OutputFormat;
  /**
   * The logical date, `YYYY-MM-DD` (UTC): messages created that UTC day go to `dt=…`, users (a snapshot,
   * as of the run) are labelled with it. Give `date` or `window`, not both.
   */
  date?: string;
  /** Whole UTC days [since, until): one `dt=…` partition per day; users labelled with the last day. */
  window?: ExportWindow;
  /** Part of every file name; default a new ULID. */
  runId?: string;
  /** Unit of the TIMESTAMP columns: `ms` or `us` (never nanoseconds). Default `us`. */
  timestampUnit?: TimestampUnit;
  /** Roll to a new data file past this many bytes. Default 128 MiB (see docs/parquet.md). */
  maxFileBytes?: number;
  /** Parquet settings; default zstd, 1,048,576-row row groups. */
  parquet?: ParquetOptions;
  /** NDJSON.gz / CSV.gz settings. */
  text?: GzipTextOptions;
  /**
   * A local folder for the rejected rows (outside the data folder). Default `<to>/_rejects`; for an S3
   * destination the rejects go into the store, `<to>/_rejects/…`, staged under
   * `<os tmpdir>/chatport-export/<bucket>-<hash of the root>/_rejects` (given, this folder keeps them instead).
   */
  rejectsDir?: string;
  /** Stop (exit 65, nothing of that dataset published) once more rows than this are rejected. Default no limit. */
  maxRejects?: number;
  /** Connection to S3 or an S3-compatible store, for `s3://` destinations. */
  s3?: S3DestinationOptions;
  /** Waiting for the export jobs: first poll interval (default 1,000 ms) and deadline (default 3,600,000 ms). */
  job?: { pollIntervalMs?: number; timeoutMs?: number };
  download?: DownloadOptions;
  /** Aborting stops the run: nothing more is published, the run ends with the signal's reason. */
  signal?: AbortSignal;
  /** Called as soon as a dataset is published (so a caller knows what a later failure left in place). */
  onDatasetPublished?: (report: DatasetReport) => void;
  /** Called as soon as one date of a dataset is published: a window publishes day by day, and a later day may fail. */
  onPartitionPublished?: (partition: { dataset: ExportDataset; date: string }) => void;
}

export interface RunExportDeps {
  client: Pick<ChatportClient, 'exports' | 'jobs' | 'serverInfo'>;
  /** Default: from `to` (local directory or S3). */
  destination?: Destination;
  logger?: Logger;
  now?: Now;
  sleep?: Sleep;
}

export interface NormalizedExportOptions extends Required<Pick<RunExportOptions, 'to' | 'format' | 'runId' | 'timestampUnit' | 'rejectsDir' | 'maxRejects'>> {
  datasets: ExportDataset[];
  window: ExportWindow;
  /** The window's last day: the users snapshot's and the rejects file's label. */
  date: string;
  /** The rejects are published in the S3 store (`<to>/_rejects`), `rejectsDir` only staging them. */
  rejectsInStore: boolean;
  maxFileBytes: number | undefined;
  parquet: ParquetOptions | undefined;
  text: GzipTextOptions | undefined;
  job: { pollIntervalMs: number; timeoutMs: number };
  download: DownloadOptions;
}

/**
 * The default rejects folder of an S3 root: local, and one per root. A run replaces its dates' rejects, so a
 * folder shared by every S3 root on the host let one root's run delete another's rejects of the same date.
 */
function s3RejectsDir(to: string): string {
  const { bucket, key } = parseS3Url(to);
  const root = formatS3Url({ bucket, key: key.replace(/\/+$/, '') });
  return join(tmpdir(), 'chatport-export', `${bucket}-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`, '_rejects');
}

export function normalizeExportOptions(options: RunExportOptions): NormalizedExportOptions {
  const datasets = [...new Set(options.datasets)];
  if (datasets.length === 0) throw new UsageError('no dataset to export: name messages, users or all');
  for (const d of datasets) if (!(EXPORT_DATASETS as readonly string[]).includes(d)) throw new UsageError(`unknown dataset "${d}": expected messages, users or all`, { dataset: d });
  if (!(OUTPUT_FORMATS as readonly string[]).includes(options.format)) throw new UsageError(`unknown format "${options.format}": expected ${OUTPUT_FORMATS.join(', ')}`, { format: options.format });
  const window = windowOf(options);
  const runId = validateRunId(options.runId ?? ulid());
  const rejectsDir = options.rejectsDir ?? (isS3Url(options.to) ? s3RejectsDir(options.to) : join(resolve(options.to), '_rejects'));
  // Node 20's recursive mkdir spins there forever, deaf to SIGTERM: a job that never ends.
  if (!isS3Url(options.to)) refuseFolderOnPseudoFs(options.to, 'the output folder');
  refuseFolderOnPseudoFs(rejectsDir, 'the rejects folder');
  // Engines scan a table's whole prefix: rejects inside <to>/<dataset>/ would be read as data.
  const inside = (dir: string, parent: string) => `${resolve(dir)}/`.startsWith(`${resolve(parent)}/`);
  // The root itself would put <rejectsDir>/<dataset>/dt=… inside the data folders, and its _staging in the destination's.
  if (!isS3Url(options.to) && EXPORT_DATASETS.some((d) => inside(join(rejectsDir, d), join(options.to, d)) || inside(rejectsDir, join(options.to, MANIFESTS_FOLDER))))
    throw new UsageError(`the rejects folder ${rejectsDir} is inside a data or manifest folder of ${options.to}; choose a folder beside them`, { rejectsDir });
  return {
    datasets,
    to: options.to,
    format: options.format,
    window,
    date: lastDayOf(window),
    runId,
    timestampUnit: options.timestampUnit ?? 'us',
    rejectsDir,
    rejectsInStore: isS3Url(options.to) && options.rejectsDir === undefined,
    maxRejects: options.maxRejects ?? Infinity,
    maxFileBytes: options.maxFileBytes,
    parquet: options.parquet,
    text: options.text,
    job: { pollIntervalMs: options.job?.pollIntervalMs ?? 1_000, timeoutMs: options.job?.timeoutMs ?? 3_600_000 },
    download: options.download ?? {},
  };
}

function windowOf(options: RunExportOptions): ExportWindow {
  if ((options.date === undefined) === (options.window === undefined)) throw new UsageError('give an export either a date or a window (not both)');
  if (options.window) {
    for (const ms of [options.window.sinceMs, options.window.untilMs])
      if (!Number.isInteger(ms) || ms % DAY_MS !== 0) throw new UsageError(`an export window starts and ends at a UTC midnight; got ${new Date(ms).toISOString()}`);
    return checkWindow(options.window);
  }
  return windowOfDate(validatePartition({ dataset: 'messages', date: options.date! }).date);
}

export function normalizeExportDeps(deps: RunExportDeps): Required<Omit<RunExportDeps, 'destination'>> & Pick<RunExportDeps, 'destination'> {
  return { ...deps, logger: deps.logger ?? createSilentLogger(), now: deps.now ?? realNow, sleep: deps.sleep ?? realSleep };
}
