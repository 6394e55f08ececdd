/** The pipeline file: schema, `${ENV}` interpolation, resolution to a PipelineConfig, JSON Schema. */
export { resolvePipelineConfig } from './resolve.js';
export type { ResolvePipelineOptions, ResolvePipelineResult } from './resolve.js';
export type { ConfigIssue } from './issues.js';
export { pipelineJsonSchema, PIPELINE_SCHEMA_ID } from './json-schema.js';
export { pipelineFileSchema, DEFAULT_STAGE_OPTIONS } from './schema.js';
export type { PipelineFile, PipelineFileInput, SlackFile } from './schema.js';
export { SLACK_SOURCE_KEY, mappedByChatport, platformSourceKey } from './export-stages.js';
export { interpolate } from './interpolate.js';
export { stageProcessorSpec } from './stage-spec.js';
export type { PipelineConfig, StageConfig, ResolvedSource, ResolvedStageOptions, ApiConfig, S3Config, SlackSourceConfig, PlatformExportConfig, ExportPlatform, TrialSpec, ShardSpec, MatchedUsers, OnExistingPolicy } from './types.js';
export { ON_EXISTING_POLICIES, EXPORT_PLATFORMS } from './types.js';
