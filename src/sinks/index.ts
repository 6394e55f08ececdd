/** The sinks stage: where export output goes, and the writers that produce it. */
export { writeExport, noteCleanupFailure, type WriteExportOptions, type ExportResult } from './write-export.js';
export { createLocalDestination } from './local-destination.js';
export type { S3DestinationOptions } from './s3-destination.js';
export type { Destination, FinishOutcome, Publication, PublishedUrls, SideFiles } from './destination.js';
export { createFileEncoder, columnBatchRows, OUTPUT_FORMATS, type OutputFormat, type EncoderOptions, type FileEncoder, type ParquetOptions, type ParquetCompression, type GzipTextOptions } from './encoders/index.js';
export { writeRolledFiles, type RolledFile, type RollOptions } from './roll-files.js';
export { ColumnBatch, isColumnBatches, type ColumnBatches, type ColumnBuffer } from './column-batch.js';
export { buildManifest, type ExportManifest, type ManifestFile } from './manifest.js';
export { SUCCESS_MARKER, MANIFESTS_FOLDER, PARTITION_COLUMN, dataFolder, manifestPath, dataFileName, validatePartition, validateRunId, type Partition } from './layout.js';
export { COLUMN_TYPES, type ColumnType, type ColumnSpec, type TableSchema, type Row, type CellValue } from './schema.js';
export { SinkRowError } from './cells.js';

import { isS3Url } from '../shared/s3-location.js';
import type { Destination } from './destination.js';
import { createLocalDestination } from './local-destination.js';
import type { S3DestinationOptions } from './s3-destination.js';

/**
 * `s3://bucket/prefix` → S3, anything else → a local directory. The S3 backend (and the AWS SDK) is loaded
 * on first use, so local output never pays for it.
 */
export function createDestination(target: string, s3: S3DestinationOptions = {}): Destination {
  if (!isS3Url(target)) return createLocalDestination(target);
  let destination: Promise<Destination> | undefined;
  const load = () => (destination ??= import('./s3-destination.js').then((m) => m.createS3Destination(target, s3)));
  return {
    root: target,
    beginPublication: async (partition, runId) => (await load()).beginPublication(partition, runId),
    readManifest: async (partition) => (await load()).readManifest(partition),
    isMarked: async (partition) => (await load()).isMarked(partition),
    finishInterrupted: async (partition, format) => (await load()).finishInterrupted(partition, format),
    unmarkedDates: async (dataset) => (await load()).unmarkedDates(dataset),
    sideFiles: {
      urlOf: (relative) => `${target.replace(/\/+$/, '')}/${relative}`,
      upload: async (relative, localPath, contentType) => (await load()).sideFiles!.upload(relative, localPath, contentType),
      list: async (relativeFolder) => (await load()).sideFiles!.list(relativeFolder),
      remove: async (relatives) => (await load()).sideFiles!.remove(relatives),
    },
  };
}
