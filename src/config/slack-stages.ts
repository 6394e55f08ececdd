import { isAbsolute, resolve as resolvePath } from 'node:path';
import { STAGE_ORDER } from '../transform/stages.js';
import { DEFAULT_STAGE_OPTIONS } from './schema.js';
import type { PipelineFile, SlackFile } from './schema.js';
import type { SlackSourceConfig, StageConfig } from './types.js';

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
  return source;
}

/**
 * The four stages a `slack:` block stands for, in run order. They carry the block in `slack`; the
 * generic fields hold what is true of them (the export's path, no mapping, no skip rules) so that code
 * reading any stage keeps working.
 */
export function slackStages(slack: SlackSourceConfig, top: PipelineFile): StageConfig[] {
  const options = { ...DEFAULT_STAGE_OPTIONS, ...Object.fromEntries(Object.entries(top.options ?? {}).filter(([, v]) => v !== undefined)) };
  return STAGE_ORDER.map((stage) => ({
    stage,
    slack,
    source: { paths: [slack.export], gzip: false, encoding: 'utf-8', csv: { header: true, delimiter: ',', quote: '"', bom: true } },
    key: SLACK_SOURCE_KEY,
    mapping: {},
    skip: [],
    options,
  }));
}
