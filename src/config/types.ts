import type { SourceEncoding } from '../formats/decode-text.js';
import type { FormatName } from '../formats/types.js';
import type { NestedMapping, SkipRule } from '../transform/mapping-spec.js';
import type { DuplicatesMode } from '../transform/source-duplicates.js';
import type { StageKind } from '../transform/types.js';

/** A stage's options after defaults and the top-level options were applied. */
export interface ResolvedStageOptions {
  chunkRecords: number;
  chunkBytes: number;
  concurrency: number;
  /** Messages: chunks are cut per lane (channel id mod lanes); one lane's chunks upload in order. */
  lanes: number;
  /** Absent: no limit. */
  maxRejects?: number;
  /** A key seen again with other content: reject the later record, or let the last one win. */
  duplicates: DuplicatesMode;
  /** Users and channels held with other content: `insert` reports them changed, `upsert` patches them. */
  mode: 'insert' | 'upsert';
  /** Messages: replies go into their root's reply thread (`replies`), or into the channel (`flatten`). */
  threads: 'replies' | 'flatten';
  /** Messages: a body over the platform's limit is rejected, or split into consecutive parts. */
  longBodies: 'reject' | 'split';
}

export interface ResolvedSource {
  /**
   * Every source entry of the stage: absolute local paths or globs (relative ones were resolved against the
   * pipeline file's folder), or s3:// URLs as written. Globs and prefixes are expanded by src/sources.
   */
  paths: string[];
  format?: FormatName;
  gzip: 'auto' | boolean;
  /** The files' text encoding (`source.encoding`, or `source.csv.encoding` in older files). */
  encoding: SourceEncoding;
  csv: {
    header: boolean;
    columns?: string[];
    delimiter: string;
    quote: string;
    bom: boolean;
  };
}

/** A `slack:` block after resolution: where the export is and how it is mapped. */
export interface SlackSourceConfig {
  /** Absolute path of the export's .zip file or unpacked folder. */
  export: string;
  /** System messages: imported as SYSTEM_TEXT, or skipped (counted). Default `import`. */
  systemMessages: 'import' | 'skip';
  /** Team id in source and idempotency keys; default the most common team_id of users.json. */
  teamId?: string;
  /** Thread roots remembered per channel; default 100,000 (src/transform/slack). */
  maxTrackedThreadRoots?: number;
  /** Messages of a conversation held back to put later-filed ones in ts order; default 10,000 (src/pipeline/slack/day-order.ts). */
  reorderWindow?: number;
}

/** The exports chatport maps itself besides Slack's (src/pipeline/platform-export.ts). */
export const EXPORT_PLATFORMS = ['discord', 'mattermost'] as const;
export type ExportPlatform = (typeof EXPORT_PLATFORMS)[number];

/** A `discord:` or `mattermost:` block after resolution. */
export interface PlatformExportConfig {
  platform: ExportPlatform;
  /** Absolute path of the export (a folder, a .zip, or Mattermost's .jsonl). */
  export: string;
  /** System messages: imported as SYSTEM_TEXT, or skipped (counted). Default `import`. */
  systemMessages: 'import' | 'skip';
}

export interface StageConfig {
  stage: StageKind;
  /**
   * Set for the stages a `slack:` block expands to: their records come from the Slack reader
   * (src/pipeline/slack), which maps them itself; `source.paths` then names the export, and `key`,
   * `mapping` and `skip` are unused (`key` says where the source keys come from, for reports).
   */
  slack?: SlackSourceConfig;
  /** As `slack`, for the stages a `discord:` or `mattermost:` block expands to. */
  platformExport?: PlatformExportConfig;
  source: ResolvedSource;
  key: string | string[];
  channel?: string;
  /** Messages only: the source field holding the key of the message a record replies to. */
  thread?: string;
  mapping: NestedMapping;
  skip: SkipRule[];
  options: ResolvedStageOptions;
  /** Users only: what to do with source users the platform already has (docs/identity.md). */
  onExisting?: { policy: OnExistingPolicy; by: string };
}

export const ON_EXISTING_POLICIES = ['match', 'skip', 'fail'] as const;
export type OnExistingPolicy = (typeof ON_EXISTING_POLICIES)[number];

/** The run's match of source users to platform users (pipeline/import/existing-users.ts). */
export interface MatchedUsers {
  policy: OnExistingPolicy;
  /** `name`, or `properties.<field>`. */
  by: string;
  /** Users-stage source key → the platform user it matched. */
  byKey: Map<string, { name: string; id: string }>;
  /** Source name → platform name, where they differ (matched by a property): references are rewritten. */
  renamed: Map<string, string>;
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
  /** Absent: path style with an endpoint (here or AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL), else virtual-hosted. */
  forcePathStyle?: boolean;
  checksums?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
}

/** A pipeline file after interpolation, validation and defaults: what the run works from. */
export interface PipelineConfig {
  version: 1;
  name: string;
  /** The pipeline's identity on the platform (idempotency keys, chatport's properties, default state folder); default the name. */
  id: string;
  /** Absent when the file has no api block (or, with missingEnv 'warn' or 'ignore', when it could not be resolved). */
  api?: ApiConfig;
  s3?: S3Config;
  /** State folder as written, or `.chatport/<name>` (relative to the working folder, as the CLI's --state). */
  state: string;
  /** Absolute folder of the pipeline file. */
  baseDir: string;
  /** The stages the file defines, in run order (users, channels, members, messages). */
  stages: StageConfig[];
  /** The file's `slack:` block, when it has one (its stages are in `stages`). */
  slack?: SlackSourceConfig;
  /** The file's `discord:` or `mattermost:` block, when it has one. */
  platformExport?: PlatformExportConfig;
  /** This process's shard of a run split over workers (`--shard I/N`); absent for a whole run. */
  shard?: ShardSpec;
  /** A trial run's cut of the input (`--limit`, `--sample`); absent for a whole run. */
  trial?: TrialSpec;
  /** Set by a run whose users stage has onExisting, once matched: every reader then maps names alike. */
  matchedUsers?: MatchedUsers;
  /**
   * Set by a run (after its users stage) and by verification: the names this pipeline's users hold on the
   * platform, by source key. `ref: user` names the user the platform holds for a key, which may differ from
   * the name the source gives it now (an insert-only pipeline keeps the old name; `unique: suffix`
   * numbering moves when users are added before it).
   */
  platformUserNames?: ReadonlyMap<string, string>;
  /**
   * Set by verification: users renamed on the platform since the import (source name → the name this
   * pipeline's user of that key holds there), so that their memberships and messages compare as theirs.
   */
  renamedUsers?: ReadonlyMap<string, string>;
}

/** One worker's part of a sharded run (docs/sharding.md): shard `index` of `count`, numbered from 0. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** A trial run takes part of the input: every reader of the pipeline (import, validate, verify) cuts alike. */
export interface TrialSpec {
  /** The first n records of each stage; the rest are skipped. */
  limit?: number;
  /** n channels picked by a hash of their keys, with all users and those channels' members and messages. */
  sample?: number;
}
