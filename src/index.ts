/** chatport's programmatic API. Every export is listed by name; the CLI is a thin layer over these. */

// Errors and exit codes
export { ChatportError, ConfigError, UsageError, InputMissingError, InterruptedError, isChatportError } from './shared/errors.js';
export { ExitCode, exitCodeFor } from './shared/exit-codes.js';
export { createLogger, type Logger, type LoggerOptions } from './shared/logger.js';
export type { Now, Sleep } from './shared/async.js';
export type { Int64 } from './shared/int64.js';

// The API client
export { createClient, type ChatportClient, type ClientOptions, type ClientDeps, type AuthOptions } from './api/index.js';
export type { Job, User, Channel, Message, Application } from './api/index.js';
export type { RetryPolicy } from './api/retry/policies.js';
export type { ConnectionOptions } from './api/http/dispatcher.js';
export {
  ApiError, isApiError, isUnauthorizedError, isForbiddenError, isNotFoundError, isRateLimitedError,
  JobDeadlineError, JobFailedError,
} from './api/index.js';

// Pipeline files
export { resolvePipelineConfig, pipelineJsonSchema, type PipelineConfig, type StageConfig, type ConfigIssue } from './config/index.js';
export type { ResolvePipelineOptions, ResolvePipelineResult } from './config/resolve.js';
export type { ShardSpec, TrialSpec } from './config/types.js';
export type { NestedMapping, MappingValue, FieldRule, TemplateRule, ConstRule, Condition, SkipRule, When, FieldRef, ValueType } from './transform/mapping-spec.js';

// Import runs
export { runImport, type ImportRunOptions, type ImportRunDeps } from './pipeline/import/run-import.js';
export type { UploaderOptions } from './pipeline/import/client-uploader.js';
export type { StageName } from './pipeline/state/events.js';
export type { VerificationSummary } from './pipeline/verify/types.js';
export { reportOf } from './pipeline/import/partial-report.js';
export { runValidate, type ValidationResult, type ValidateOptions } from './pipeline/import/run-validate.js';
export type { RejectLine } from './pipeline/import/rejects-writer.js';
export { readRunStatus, type RunStatusView, type StageStatus } from './pipeline/import/read-status.js';
export { formatReportTable, exitCodeForReport, type RunReport, type StageCounts, type RunStatus, type ReportedError, type VerificationNotDone } from './pipeline/report.js';

// Analytics exports
export { runExport, type RunExportOptions, type RunExportDeps, type ExportReport, type DatasetReport, type PartitionReport, type ExportDataset } from './pipeline/export/index.js';
export type { ExportStatus } from './pipeline/export/report.js';
export type { ExportWindow } from './pipeline/export/export-window.js';
export type { DownloadOptions } from './pipeline/export/download.js';
export type { ParquetOptions } from './sinks/encoders/parquet-batching.js';
export type { GzipTextOptions } from './sinks/encoders/ndjson-encoder.js';

// Building blocks
export { parseRecords, type SourceItem, type ParseRecordsOptions, type SourceRecord, type UnparseableRecord, type CsvFormatOptions } from './formats/index.js';
export { createInputSource, type InputSource, type InputObject, type InputSourceOptions } from './sources/index.js';
export { createStageProcessor, Chunker, idempotencyKeyFor, type Processed, type Accepted, type Rejected, type Skipped } from './transform/index.js';
export type { StageProcessor, StageProcessorSpec, StageProcessorDeps, SourceInput } from './transform/stage-processor.js';
export type { UserNameLookup } from './transform/mapping-rules.js';
export type { Reason, RecordPosition } from './transform/types.js';
export type { ChunkerOptions } from './transform/chunker.js';
export { writeExport, createDestination, type WriteExportOptions, type ExportResult } from './sinks/index.js';
export type { Destination } from './sinks/destination.js';
export type { S3DestinationOptions } from './sinks/s3-destination.js';
export type { ExportManifest } from './sinks/manifest.js';
export type { Row, CellValue, TableSchema } from './sinks/schema.js';
export type { ColumnBatch, ColumnBatches } from './sinks/column-batch.js';

// The sandbox
export { startSandbox, type SandboxOptions, type SandboxHandle, type FaultRule, type Fault } from './sandbox/index.js';
export type { SandboxCapacity, SandboxJobOptions } from './sandbox/options.js';
