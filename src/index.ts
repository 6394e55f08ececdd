/** chatport's programmatic API. Every export is listed by name; the CLI is a thin layer over these. */

// Errors and exit codes
export { ChatportError, ConfigError, UsageError, InputMissingError, InterruptedError, isChatportError } from './shared/errors.js';
export { ExitCode, exitCodeFor } from './shared/exit-codes.js';
export { createLogger, type Logger, type LoggerOptions } from './shared/logger.js';

// The API client
export { createClient, type ChatportClient, type ClientOptions, type ClientDeps, type AuthOptions } from './api/index.js';
export type { Job, User, Channel, Message, Application } from './api/index.js';
export {
  ApiError, isApiError, isUnauthorizedError, isForbiddenError, isNotFoundError, isRateLimitedError,
  JobDeadlineError, JobFailedError,
} from './api/index.js';

// Pipeline files
export { resolvePipelineConfig, pipelineJsonSchema, type PipelineConfig, type StageConfig, type ConfigIssue } from './config/index.js';

// Import runs
export { runImport, type ImportRunOptions, type ImportRunDeps } from './pipeline/import/run-import.js';
export type { StageName } from './pipeline/state/events.js';
export type { VerificationSummary } from './pipeline/verify/types.js';
export { reportOf } from './pipeline/import/partial-report.js';
export { runValidate, type ValidationResult, type ValidateOptions } from './pipeline/import/run-validate.js';
export type { RejectLine } from './pipeline/import/rejects-writer.js';
export { readRunStatus, type RunStatusView } from './pipeline/import/read-status.js';
export { formatReportTable, exitCodeForReport, type RunReport, type StageCounts, type RunStatus } from './pipeline/report.js';

// Analytics exports
export { runExport, type RunExportOptions, type RunExportDeps, type ExportReport, type DatasetReport, type PartitionReport, type ExportDataset } from './pipeline/export/index.js';

// Building blocks
export { parseRecords, type SourceItem, type ParseRecordsOptions } from './formats/index.js';
export { createInputSource, type InputSource, type InputObject } from './sources/index.js';
export { createStageProcessor, Chunker, idempotencyKeyFor, type Processed, type Accepted, type Rejected, type Skipped } from './transform/index.js';
export { writeExport, createDestination, type WriteExportOptions, type ExportResult } from './sinks/index.js';

// The sandbox
export { startSandbox, type SandboxOptions, type SandboxHandle, type FaultRule, type Fault } from './sandbox/index.js';
