/**
 * Writes one dataset of one date: rows → rolled files (Parquet, NDJSON.gz or CSV.gz) → destination, then
 * the manifest and `_SUCCESS`. A failure anywhere aborts the publication, so nothing of the run is
 * published and the previous output of that date stays.
 */
import type { Readable } from 'node:stream';
import type { Logger } from '../shared/logger.js';
import { createSilentLogger } from '../shared/logger.js';
import { realNow, type Now } from '../shared/async.js';
import { isChatportError } from '../shared/errors.js';
import type { Destination, PublishedUrls } from './destination.js';
import { createFileEncoder, type EncoderOptions, type OutputFormat } from './encoders/index.js';
import { validatePartition, validateRunId } from './layout.js';
import { buildManifest, type ExportManifest, type ManifestFile } from './manifest.js';
import { writeRolledBatches, writeRolledFiles } from './roll-files.js';
import { isColumnBatches, type ColumnBatches } from './column-batch.js';
import type { Row, TableSchema } from './schema.js';

export interface WriteExportOptions extends EncoderOptions {
  dataset: string;
  /** Logical date, `YYYY-MM-DD` (UTC). */
  date: string;
  /** The run id (a ULID), part of every file name. */
  runId: string;
  format: OutputFormat;
  schema: TableSchema;
  destination: Destination;
  /** Roll to a new file past this many bytes. Default 128 MiB (Snowflake likes 100–250 MB, Redshift ≤ 1 GB). */
  maxFileBytes?: number;
  /** The platform's export job id, recorded in the manifest. */
  jobId?: string;
  /** The platform's API version, recorded in the manifest. */
  apiVersion?: string;
  /**
   * Extra facts for the manifest's `details` (unknown columns kept as strings, reject counts…). A function
   * is called once the rows are written, so it can report counts only known at the end.
   */
  details?: Record<string, unknown> | (() => Record<string, unknown>);
  /**
   * The last step before the publication commits, told how many rows it holds (a check, or files the
   * manifest will name put in place): a throw aborts it, and what the date held before stays.
   */
  beforeCommit?: (rows: number) => void | Promise<void>;
  now?: Now;
  logger?: Logger;
}

export interface ExportResult extends PublishedUrls {
  manifest: ExportManifest;
}

/**
 * The run's own failure stays the one reported; what its cleanup left (`details.cleanup`) goes with it, so
 * the termination log says in what state the output is.
 */
export function noteCleanupFailure(error: unknown, cleanupError: unknown): void {
  if (isChatportError(error)) error.details.cleanup = cleanupError instanceof Error ? cleanupError.message : String(cleanupError);
}

/** `rows` one by one, or in column batches (Parquet only: the export's fast path). */
export async function writeExport(rows: AsyncIterable<Row> | ColumnBatches, options: WriteExportOptions): Promise<ExportResult> {
  const now = options.now ?? realNow;
  const logger = options.logger ?? createSilentLogger();
  const partition = validatePartition({ dataset: options.dataset, date: options.date });
  const runId = validateRunId(options.runId);
  const encoder = await createFileEncoder(options.format, options.schema, options);
  const startedAtMs = now();

  const publication = await options.destination.beginPublication(partition, runId);
  try {
    const names: string[] = [];
    const roll = { maxFileBytes: options.maxFileBytes ?? 128 * 1024 * 1024 };
    const writeFile = async (sequence: number, body: Readable) => {
      const name = publication.dataFileName(sequence, encoder.extension);
      names[sequence] = name;
      await publication.writeDataFile(name, body, encoder.contentType);
      logger.debug({ dataset: partition.dataset, date: partition.date, file: name }, 'export file written');
    };
    const rolled = isColumnBatches(rows) ? await writeRolledBatches(rows.batches, encoder, roll, writeFile) : await writeRolledFiles(rows, encoder, roll, writeFile);
    const files: ManifestFile[] = rolled.map((f) => ({
      name: names[f.sequence]!,
      url: publication.urlOf(names[f.sequence]!),
      rows: f.rows,
      bytes: f.bytes,
      sha256: f.sha256,
    }));
    await options.beforeCommit?.(files.reduce((sum, f) => sum + f.rows, 0));
    const manifest = buildManifest({
      dataset: partition.dataset,
      date: partition.date,
      runId,
      jobId: options.jobId,
      apiVersion: options.apiVersion,
      format: options.format,
      compression: encoder.compression,
      startedAtMs,
      finishedAtMs: now(),
      dataUrl: publication.dataUrl,
      schema: options.schema,
      files,
      details: typeof options.details === 'function' ? options.details() : options.details,
    });
    const urls = await publication.commit(`${JSON.stringify(manifest, null, 2)}\n`);
    logger.info({ dataset: partition.dataset, date: partition.date, files: files.length, rows: manifest.rowCount, bytes: manifest.totalBytes }, 'export published');
    return { manifest, ...urls };
  } catch (error) {
    try {
      await publication.abort();
    } catch (abortError) {
      logger.warn({ err: abortError, dataset: partition.dataset, date: partition.date }, 'cleaning up after a failed export failed');
      noteCleanupFailure(error, abortError);
    }
    throw error;
  }
}
