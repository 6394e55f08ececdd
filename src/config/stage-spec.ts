import type { StageProcessorSpec } from '../transform/stage-processor.js';
import type { PipelineConfig, StageConfig } from './types.js';

/** The spec createStageProcessor takes, for one stage of a resolved pipeline. */
export function stageProcessorSpec(config: PipelineConfig, stage: StageConfig): StageProcessorSpec {
  const spec: StageProcessorSpec = { pipelineId: config.id, stage: stage.stage, key: stage.key, mapping: stage.mapping, skip: stage.skip };
  if (stage.channel !== undefined) spec.channel = stage.channel;
  if (stage.thread !== undefined) spec.thread = stage.thread;
  if (stage.stage === 'messages' && stage.options.mode === 'upsert') spec.markKeys = true;
  if (stage.options.longBodies === 'split') spec.longBodies = 'split';
  if (config.matchedUsers?.policy === 'match' && stage.stage !== 'users') spec.renamedUsers = config.matchedUsers.renamed;
  return spec;
}
