/**
 * Where export output lives, relative to the destination root:
 *
 *   <dataset>/dt=YYYY-MM-DD/part-<run>-<n>.<ext>          data (Hive-style partition, no colons: Athena);
 *                                                          part-<run>-<attempt>-<n>.<ext> on S3, and locally
 *                                                          for a retry with the same run id
 *   <dataset>/dt=YYYY-MM-DD/_SUCCESS                      written last; readers ignore a date without it
 *   _manifests/<dataset>/dt=YYYY-MM-DD/manifest.json      outside the data prefix, so engines that scan
 *                                                          <dataset>/ never read it as data
 * A retry keeps its run id (Airflow's run_id), and neither backend may put a file over one a published
 * manifest names: S3 has no rename, so each attempt adds a random tag; a local publish moves its files in
 * beside the old ones before the manifest changes, so a run whose id the date's folder already holds adds one.
 */
import { randomBytes } from 'node:crypto';
import { UsageError } from '../shared/errors.js';

export interface Partition {
  dataset: string;
  /** `YYYY-MM-DD`, the logical (UTC) date of the export. */
  date: string;
}

export const SUCCESS_MARKER = '_SUCCESS';
/**
 * The Hive partition column (`dt=YYYY-MM-DD`). Readers add it to every row, so no data column may have
 * this name: Spark, Athena/Glue and BigQuery refuse or mis-read a table whose files also hold a `dt`.
 */
export const PARTITION_COLUMN = 'dt';
/** Folder under the root for manifests; dataset names may not start with `_`, so none can clash. */
export const MANIFESTS_FOLDER = '_manifests';
/** Folder under a local root where output is written aside before it is renamed into place. */
export const STAGING_FOLDER = '_staging';

const DATASET = /^[a-z0-9][a-z0-9_-]{0,62}$/i;
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/;

export function validatePartition(partition: Partition): Partition {
  if (!DATASET.test(partition.dataset)) {
    throw new UsageError(`invalid dataset name "${partition.dataset}": expected letters, digits, "_" or "-", not starting with "_" or "-"`, { dataset: partition.dataset });
  }
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(partition.date);
  const day = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : undefined;
  if (!day || day.toISOString().slice(0, 10) !== partition.date) {
    throw new UsageError(`invalid date "${partition.date}": expected a calendar date as YYYY-MM-DD`, { date: partition.date });
  }
  return partition;
}

export function validateRunId(runId: string): string {
  if (!RUN_ID.test(runId)) throw new UsageError(`invalid run id "${runId}": expected letters, digits, "_" or "-"`, { runId });
  return runId;
}

/** The date of a data folder's name (`dt=2026-11-21`), or undefined for any other name. */
export function dateOfFolder(name: string): string | undefined {
  return new RegExp(`^${PARTITION_COLUMN}=(\\d{4}-\\d{2}-\\d{2})$`).exec(name)?.[1];
}

export function dataFolder(partition: Partition): string {
  return `${partition.dataset}/${PARTITION_COLUMN}=${partition.date}`;
}

export function manifestPath(partition: Partition): string {
  return `${MANIFESTS_FOLDER}/${partition.dataset}/${PARTITION_COLUMN}=${partition.date}/manifest.json`;
}

/**
 * `part-<run>-00000.parquet`, or `part-<run>-<attempt>-00000.parquet`; five digits keep names sorted in
 * write order up to 100,000 files.
 */
export function dataFileName(runId: string, sequence: number, extension: string, attempt?: string): string {
  return `part-${runId}-${attempt ? `${attempt}-` : ''}${String(sequence).padStart(5, '0')}.${extension}`;
}

/**
 * A tag no file of the date's folder uses yet (`existing`: its keys or names, each starting with
 * `folderKey`); 8 hex digits, so a clash is a 1-in-4-billion chance, checked anyway.
 */
export function newAttemptTag(runId: string, folderKey: string, existing: ReadonlySet<string>): string {
  for (;;) {
    const tag = randomBytes(4).toString('hex');
    const start = `${folderKey}part-${runId}-${tag}-`;
    if (![...existing].some((k) => k.startsWith(start))) return tag;
  }
}
