/**
 * The manifest of one dataset and date. It doubles as a Redshift COPY manifest: `entries` with `url`,
 * `mandatory` and `meta.content_length` (required for Parquet). Redshift's own `UNLOAD … MANIFEST VERBOSE`
 * writes extra top-level keys beside `entries` and COPY accepts them, so the other fields are safe here.
 */
import type { ColumnSpec, TableSchema } from './schema.js';

export interface ManifestFile {
  name: string;
  url: string;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface ExportManifest {
  manifestVersion: 1;
  dataset: string;
  date: string;
  runId: string;
  jobId: string | null;
  apiVersion: string | null;
  format: string;
  compression: string;
  startedAt: string;
  finishedAt: string;
  /** The folder holding the data files. */
  dataUrl: string;
  rowCount: number;
  totalBytes: number;
  schema: Array<Required<ColumnSpec>>;
  files: ManifestFile[];
  entries: Array<{ url: string; mandatory: true; meta: { content_length: number; record_count: number } }>;
  /** Facts the caller adds, e.g. unknown columns kept as strings and reject counts. */
  details: Record<string, unknown>;
}

export interface ManifestInput {
  dataset: string;
  date: string;
  runId: string;
  jobId?: string;
  apiVersion?: string;
  format: string;
  compression: string;
  startedAtMs: number;
  finishedAtMs: number;
  dataUrl: string;
  schema: TableSchema;
  files: ManifestFile[];
  details?: Record<string, unknown>;
}

export function buildManifest(input: ManifestInput): ExportManifest {
  return {
    manifestVersion: 1,
    dataset: input.dataset,
    date: input.date,
    runId: input.runId,
    jobId: input.jobId ?? null,
    apiVersion: input.apiVersion ?? null,
    format: input.format,
    compression: input.compression,
    startedAt: new Date(input.startedAtMs).toISOString(),
    finishedAt: new Date(input.finishedAtMs).toISOString(),
    dataUrl: input.dataUrl,
    rowCount: input.files.reduce((sum, f) => sum + f.rows, 0),
    totalBytes: input.files.reduce((sum, f) => sum + f.bytes, 0),
    schema: input.schema.columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable !== false })),
    files: input.files,
    entries: input.files.map((f) => ({ url: f.url, mandatory: true, meta: { content_length: f.bytes, record_count: f.rows } })),
    details: input.details ?? {},
  };
}
