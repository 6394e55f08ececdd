import type { FormatName } from '../formats/types.js';
import type { NestedMapping, SkipRule } from '../transform/mapping-spec.js';
import type { StageKind } from '../transform/types.js';

/** A stage's options after defaults and the top-level options were applied. */
export interface ResolvedStageOptions {
  chunkRecords: number;
  chunkBytes: number;
  concurrency: number;
  /** Absent: no limit. */
  maxRejects?: number;
}

export interface ResolvedSource {
  /**
   * Every source entry of the stage: absolute local paths or globs (relative ones were resolved against the
   * pipeline file's folder), or s3:// URLs as written. Globs and prefixes are expanded by src/sources.
   */
  paths: string[];
  format?: FormatName;
  gzip: 'auto' | boolean;
  csv: {
    header: boolean;
    columns?: string[];
    delimiter: string;
    quote: string;
    bom: boolean;
    encoding: BufferEncoding;
  };
}

export interface StageConfig {
  stage: StageKind;
  source: ResolvedSource;
  key: string | string[];
  channel?: string;
  mapping: NestedMapping;
  skip: SkipRule[];
  options: ResolvedStageOptions;
}

export interface ApiConfig {
  url: string;
  /** Default `<url>/oauth/token`. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  pathPrefix: string;
}

export interface S3Config {
  region?: string;
  endpoint?: string;
  forcePathStyle: boolean;
  checksums?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
}

/** A pipeline file after interpolation, validation and defaults: what the run works from. */
export interface PipelineConfig {
  version: 1;
  name: string;
  /** Absent when the file has no api block (or, with missingEnv 'warn', when it could not be resolved). */
  api?: ApiConfig;
  s3?: S3Config;
  /** State folder as written, or `.chatport/<name>` (relative to the working folder, as the CLI's --state). */
  state: string;
  /** Absolute folder of the pipeline file. */
  baseDir: string;
  /** The stages the file defines, in run order (users, channels, members, messages). */
  stages: StageConfig[];
}
