import type { ChatportClient } from '../../api/index.js';
import type { PipelineConfig } from '../../config/index.js';
import type { Logger } from '../../shared/logger.js';
import { reportedError, type RunReport } from '../report.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import { RunPaths } from '../state/run-paths.js';
import { findLatestRun, verificationScope } from './latest-run.js';
import { exportWaitOf, runVerify } from './run-verify.js';

/**
 * `import --verify`: after a run that ended without error, verify the platform against the source and
 * put the summary into the run's report (report.json is written again with `verification`). A verification
 * that fails (the platform's export FAILED twice, a 5xx past the retries, a signal) does not undo the import:
 * the report says `verification: { status: 'not-done', error }`, and the error is returned for the caller
 * to end the run with (its exit code).
 */
export async function verifyImportRun(
  report: RunReport,
  reportFile: string,
  input: { config: PipelineConfig; client: ChatportClient; logger: Logger; stateDir: string; signal?: AbortSignal; sample?: number | 'auto'; exportTimeoutMs?: number },
): Promise<unknown> {
  // The run's logger already names the run.
  input.logger.info('verifying what the platform holds against the source');
  let failure: unknown;
  try {
    const { config, rejectsFiles } = await whatToVerify(input.config, report, input.stateDir);
    const { summary, close } = await runVerify(
      { config, rejectsFiles, channelIdFiles: [new RunPaths(input.stateDir).channelIds(report.runId)], stateDirs: [input.stateDir], outDir: report.runDir, ...(input.sample !== undefined ? { sample: input.sample } : {}), ...exportWaitOf(input.exportTimeoutMs) },
      { client: input.client, logger: input.logger, ...(input.signal ? { signal: input.signal } : {}) },
    );
    await close();
    report.verification = summary;
    input.logger.info({ status: summary.status, counts: summary.counts }, 'verification finished');
  } catch (error) {
    failure = error;
    report.verification = { status: 'not-done', error: reportedError(error) };
    input.logger.warn({ err: report.verification.error }, 'verification could not be done; the import stands');
  }
  await writeFileAtomic(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  return failure;
}

/** A trial's verification compares what verificationScope says (latest-run.ts); any other run, its input and rejects. */
async function whatToVerify(config: PipelineConfig, report: RunReport, stateDir: string): Promise<{ config: PipelineConfig; rejectsFiles: string[] }> {
  const run = config.trial ? await findLatestRun(stateDir) : undefined;
  if (run === undefined) return { config, rejectsFiles: report.rejectsFile ? [report.rejectsFile] : [] };
  const { trial, rejectsFiles } = verificationScope(run);
  const { trial: _cut, ...whole } = config;
  return { config: trial ? config : whole, rejectsFiles };
}
