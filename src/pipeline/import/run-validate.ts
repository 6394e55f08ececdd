import { mkdtemp, rm } from 'node:fs/promises';
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
import { readFirstRejects } from './first-rejects.js';
import type { RejectLine } from './rejects-writer.js';

export interface ValidationResult {
  stages: Partial<Record<StageName, StageCounts>>;
  totals: ReturnType<typeof sumTotals>;
  durationMs: number;
  /**
   * rejects.ndjson of every stage, in `outDir`. Empty without `outDir`: the files were in a temporary folder,
   * removed before runValidate resolved (`rejects` has their first lines).
   */
  rejectsFiles: Partial<Record<StageName, string>>;
  /** The first rejects of each stage that rejected any (at most `keepRejects` each), as the rejects files list them. */
  rejects: Partial<Record<StageName, RejectLine[]>>;
  /** The folder listing the skipped records (`<stage>.ndjson`), when a stage skipped any and `outDir` was given. */
  skippedDir?: string;
  /** Mapped fields absent from the first records, and fields no record of a stage had. */
  warnings: RunWarning[];
}

/**
 * The whole import without the network: parse, map, validate, chunk (in memory, nothing written but the
 * rejects), and the cross-references that can be checked offline — members and messages naming users the
 * users stage does not produce, and channels the channels stage does not produce.
 */
export interface ValidateOptions {
  /**
   * Folder for the rejects and skipped files, kept (the caller's). Without one they are written to a
   * temporary folder that is removed before runValidate settles: a service validating in a loop leaves
   * nothing behind, and reads what it needs in the result's `rejects`.
   */
  outDir?: string;
  /** Rejects per stage the result hands back in `rejects` (the first ones, in source order). Default 100. */
  keepRejects?: number;
  signal?: AbortSignal;
}

const KEPT_REJECTS = 100;

export async function runValidate(config: PipelineConfig, options: ValidateOptions = {}): Promise<ValidationResult> {
  const temporary = options.outDir === undefined ? await mkdtemp(join(tmpdir(), 'chatport-validate-')) : undefined;
  const interruption = interruptionSignal(options.signal);
  try {
    const result = await validateStages(config, options.outDir ?? temporary!, interruption.signal);
    result.rejects = await readFirstRejects(result.rejectsFiles, options.keepRejects ?? KEPT_REJECTS);
    if (temporary === undefined) return result;
    const { skippedDir: _gone, ...kept } = result;
    return { ...kept, rejectsFiles: {} };
  } finally {
    interruption.release();
    if (temporary !== undefined) await rm(temporary, { recursive: true, force: true });
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
  return { stages, totals: sumTotals(stages), durationMs: realNow() - startedAt, rejectsFiles, rejects: {}, ...(skippedDir ? { skippedDir } : {}), warnings };
}
