import { isAbsolute, resolve as resolvePath } from 'node:path';
import { STAGE_ORDER } from '../transform/stages.js';
import { DEFAULT_STAGE_OPTIONS } from './schema.js';
import type { PipelineFile, PlatformExportFile, SlackFile } from './schema.js';
import type { ExportPlatform, PlatformExportConfig, SlackSourceConfig, StageConfig } from './types.js';

/**
 * What a Slack stage reports as its key: the Slack mapping makes the source keys itself
 * (`<team>/<user>`, `<team>/<channel>`, `<team>/<channel>/<user>`, `<team>/<channel>/<ts>`).
 */
export const SLACK_SOURCE_KEY = 'slack source key (team/id; see docs/slack-migration.md)';

/** The `slack:` block with its export path made absolute (relative paths start at the pipeline file's folder). */
export function resolveSlackSource(slack: SlackFile, baseDir: string): SlackSourceConfig {
  const source: SlackSourceConfig = {
    export: isAbsolute(slack.export) ? slack.export : resolvePath(baseDir, slack.export),
    systemMessages: slack.systemMessages,
  };
  if (slack.teamId !== undefined) source.teamId = slack.teamId;
  if (slack.maxTrackedThreadRoots !== undefined) source.maxTrackedThreadRoots = slack.maxTrackedThreadRoots;
  if (slack.reorderWindow !== undefined) source.reorderWindow = slack.reorderWindow;
  return source;
}

/** What a Discord or Mattermost stage reports as its key (the mapping makes the keys itself). */
export const platformSourceKey = (platform: ExportPlatform): string => `${platform} source key (see docs/${platform}-migration.md)`;

/** A `discord:` or `mattermost:` block with its export path made absolute. */
export function resolvePlatformExport(platform: ExportPlatform, block: PlatformExportFile, baseDir: string): PlatformExportConfig {
  return { platform, export: isAbsolute(block.export) ? block.export : resolvePath(baseDir, block.export), systemMessages: block.systemMessages };
}

/**
 * The four stages an export block (`slack:`, `discord:`, `mattermost:`) stands for, in run order. They
 * carry the block in `slack` or `platformExport`; the generic fields hold what is true of them (the
 * export's path, no mapping, no skip rules) so that code reading any stage keeps working.
 */
export function exportStages(top: PipelineFile, block: { slack: SlackSourceConfig } | { platformExport: PlatformExportConfig }): StageConfig[] {
  const options = { ...DEFAULT_STAGE_OPTIONS, ...Object.fromEntries(Object.entries(top.options ?? {}).filter(([, v]) => v !== undefined)) };
  const path = 'slack' in block ? block.slack.export : block.platformExport.export;
  const onExisting = (top.slack ?? top.discord ?? top.mattermost)?.onExistingUsers;
  return STAGE_ORDER.map((stage) => ({
    stage,
    ...block,
    source: { paths: [path], gzip: false, encoding: 'utf-8', csv: { header: true, delimiter: ',', quote: '"', bom: true } },
    key: 'slack' in block ? SLACK_SOURCE_KEY : platformSourceKey(block.platformExport.platform),
    mapping: {},
    skip: [],
    options,
    ...(stage === 'users' && onExisting !== undefined ? { onExisting: { policy: onExisting, by: 'name' } } : {}),
  }));
}

/** Stages whose records chatport maps itself from a whole export: no mapping, no field checks. */
export const mappedByChatport = (stage: StageConfig): boolean => stage.slack !== undefined || stage.platformExport !== undefined;
