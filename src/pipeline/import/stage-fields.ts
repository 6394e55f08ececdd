import type { SourceItem } from '../../formats/index.js';
import { mappedByChatport, stageProcessorSpec, type PipelineConfig, type StageConfig } from '../../config/index.js';
import { FieldPresence, fieldRefName, stageSourceFields } from '../../transform/index.js';
import type { RunWarning } from '../report.js';

/** Watches which of a stage's source fields its records have, as they are read. */
export interface StageFieldWatch {
  onSourceBatch(batch: readonly SourceItem[]): void;
  /** At the stage's end: a warning for every field no record had. */
  warnings(read: number): RunWarning[];
}

/** None for the stages of an export block (chatport maps them itself). */
export function watchStageFields(config: PipelineConfig, stage: StageConfig): StageFieldWatch | undefined {
  if (mappedByChatport(stage)) return undefined;
  const presence = new FieldPresence(stageSourceFields(stageProcessorSpec(config, stage)));
  return {
    onSourceBatch: (batch) => presence.observe(batch),
    warnings: (read) =>
      presence.missing().map(({ path, field }) => ({
        stage: stage.stage, path: `stages.${stage.stage}.${path}`, field: fieldRefName(field),
        message: `stages.${stage.stage}.${path}: none of the ${read} records of the ${stage.stage} stage had the field ${JSON.stringify(fieldRefName(field))}; what it maps to stayed empty`,
      })),
  };
}
