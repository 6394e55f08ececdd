import type { PipelineConfig, PlatformExportConfig, StageConfig } from '../../config/index.js';
import type { ChannelIdLookup, Processed } from '../../transform/index.js';

export interface PlatformStageDeps {
  /** Members and messages: channel source key → platform id (after the channels stage). */
  channelIds?: ChannelIdLookup;
  signal?: AbortSignal;
}

/**
 * What each whole-export source besides Slack provides (src/pipeline/slack is the model): the export opened
 * and checked before anything is sent, and each stage's records, mapped, in a deterministic order, so a
 * resumed run rebuilds the same chunks. read = imported + rejected + skipped holds per record.
 */
export interface PlatformExportReader {
  /** Pre-flight: opens the export and closes it (missing: INPUT_MISSING; unreadable: DATA_INVALID). */
  check(path: string): Promise<void>;
  readStageBatches(config: PipelineConfig, stage: StageConfig, source: PlatformExportConfig, deps: PlatformStageDeps): AsyncGenerator<Processed[]>;
}

