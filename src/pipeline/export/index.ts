/** The analytics export pipeline: `runExport(options, deps)` and the pieces a caller needs around it. */
export { runExport } from './run-export.js';
export type { RunExportOptions, RunExportDeps } from './options.js';
export { formatExportReport, type ExportReport, type DatasetReport, type PartitionReport, type ExportStatus } from './report.js';
export { resolveExportDate } from './export-date.js';
export { DATASET_SCHEMAS, EXPORT_DATASETS, MESSAGES_SCHEMA, USERS_SCHEMA, type ExportDataset, type DatasetSchema, type DeclaredColumn } from './schemas.js';
export type { TimestampUnit, UnknownColumn } from './column-plan.js';
export { readExportPipelineFile, parseExportPipelineFile, ExportPipelineFile } from './pipeline-file.js';
export { resolveWindow, describeWindow, windowOfDate, daysOf, type ExportWindow, type WindowFlags } from './export-window.js';
export { checkStateFolderWritable, checkStateScope, defaultStateDir, dueWindow, nothingToDoMessage, readIncrementalState, saveIncrementalState, STATE_FILE, type IncrementalState, type IncrementalScope } from './incremental.js';
