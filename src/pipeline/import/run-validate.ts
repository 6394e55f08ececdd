import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PipelineConfig } from '../../config/index.js';
import { realNow } from '../../shared/async.js';
import { interruptionSignal } from '../../shared/errors.js';
import { createSilentLogger } from '../../shared/logger.js';
import { sumTotals, type RunWarning, type StageCounts } from '../report.js';
import type { JournalEvent, StageName } from '../state/events.js';
import { discardingJournal } from '../state/journal.js';
import { RunPaths } from '../state/run-paths.js';
import { foldRunState } from '../state/run-state.js';
import { checkMappedFields } from './check-mapped-fields.js';
import { preflightInputs } from './preflight.js';
import { sourceOptionsOf } from './read-stage.js';
import { StageChecks } from './stage-checks.js';
import { runStage } from './stage-runner.js';
import { skippedFolderOf } from './skipped-listing.js';

export interface ValidationResult {
  stages: Partial<Record<StageName, StageCounts>>;
  totals: ReturnType<typeof sumTotals>;
  durationMs: number;
  /** rejects.ndjson of every stage, in the validation's own folder. */
  rejectsFiles: Partial<Record<StageName, string>>;
  /** The folder listing the skipped records (`<stage>.ndjson`), when a stage skipped any. */
  skippedDir?: string;
  /** Mapped fields absent from the first records, and fields no record of a stage had. */
  warnings: RunWarning[];
}

/**
 * The whole import without the network: parse, map, validate, chunk (in memory, nothing written but the
 * rejects), and the cross-references that can be checked offline — members and messages naming users the
 * users stage does not produce, and channels the channels stage does not produce.
 */
export async function runValidate(config: PipelineConfig, options: { outDir?: string; signal?: AbortSignal } = {}): Promise<ValidationResult> {
  const outDir = options.outDir ?? (await mkdtemp(join(tmpdir(), 'chatport-validate-')));
  const interruption = interruptionSignal(options.signal);
  try {
    return await validateStages(config, outDir, interruption.signal);
  } finally {
    interruption.release();
  }
}

async function validateStages(config: PipelineConfig, outDir: string, signal: AbortSignal): Promise<ValidationResult> {
  const startedAt = realNow();
  const paths = new RunPaths(outDir);
  const runId = 'validate';
  const state = foldRunState([]);
  const sources = sourceOptionsOf(config, signal);
  const hasChannels = config.stages.some((s) => s.stage === 'channels');
  const checks = new StageChecks(config, undefined);
  const channelKeys = new Set<string>();
  const stages: ValidationResult['stages'] = {};
  const rejectsFiles: ValidationResult['rejectsFiles'] = {};
  const journal = discardingJournal<JournalEvent>();
  await preflightInputs(config, sources, signal);
  // A mapping naming a column the input does not have is refused here (ConfigError, exit 78).
  const warnings = await checkMappedFields(config, sources, signal);

  for (const stageConfig of config.stages) {
    const stage = stageConfig.stage;
    const { crossCheck, onAccepted } = await checks.forStage(stageConfig);
    stages[stage] = await runStage({
      config, stage: stageConfig, runId, paths, state: state.stages[stage], journal, mode: 'validate', sources, signal,
      logger: createSilentLogger(), now: realNow, onProgress: () => undefined, crossCheck,
      // The whole stage's word on a field replaces the first records' one. A template names several fields at
      // one path, so a warning is the same one only for the same path and field.
      onWarning: (w) => warnings.splice(0, warnings.length, ...warnings.filter((e) => e.path !== w.path || e.field !== w.field), w),
      // Any channel the channels stage accepted resolves to a placeholder id; others are rejected. Without a
      // channels stage the channels exist on the platform already and cannot be checked offline.
      channelIds: (key: string) => (!hasChannels || channelKeys.has(key) ? 1 : undefined),
      onAccepted: (item, sourceKey) => {
        onAccepted(item, sourceKey);
        if (stage === 'channels') channelKeys.add(sourceKey);
      },
    });
    rejectsFiles[stage] = paths.stageRejects(runId, stage);
  }
  const skippedDir = await skippedFolderOf(paths, runId, Object.keys(stages) as StageName[]);
  return { stages, totals: sumTotals(stages), durationMs: realNow() - startedAt, rejectsFiles, ...(skippedDir ? { skippedDir } : {}), warnings };
}
