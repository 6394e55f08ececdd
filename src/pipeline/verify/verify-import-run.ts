import { appendFile, mkdir } from 'node:fs/promises';
import type { ChatportClient } from '../../api/index.js';
import type { PipelineConfig } from '../../config/index.js';
import type { Logger } from '../../shared/logger.js';
import { reportedError, sumTotals, type RunReport, type VerificationNotDone } from '../report.js';
import { deletedSinceImportReason } from './deleted-since-import.js';
import type { SkippedLine } from '../import/skipped-listing.js';
import type { Difference } from './types.js';
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
  // Until verification ends, report.json says it has not: a run killed during it (SIGKILL, out of memory)
  // left a report that `status` read as verified-free success, exit 0.
  await writeFileAtomic(reportFile, `${JSON.stringify({ ...report, verification: UNFINISHED }, null, 2)}\n`);
  let failure: unknown;
  try {
    const { config, rejectsFiles } = await whatToVerify(input.config, report, input.stateDir);
    const { summary, close, resent } = await runVerify(
      { config, rejectsFiles, channelIdFiles: [new RunPaths(input.stateDir).channelIds(report.runId)], stateDirs: [input.stateDir], runId: report.runId, outDir: report.runDir, ...(input.sample !== undefined ? { sample: input.sample } : {}), ...exportWaitOf(input.exportTimeoutMs) },
      { client: input.client, logger: input.logger, ...(input.signal ? { signal: input.signal } : {}) },
    );
    await close();
    report.verification = summary;
    await recountResent(report, new RunPaths(input.stateDir), resent);
    input.logger.info({ status: summary.status, counts: summary.counts }, 'verification finished');
  } catch (error) {
    failure = error;
    report.verification = { status: 'not-done', error: reportedError(error) };
    input.logger.warn({ err: report.verification.error }, 'verification could not be done; the import stands');
  }
  await writeFileAtomic(reportFile, `${JSON.stringify(report, null, 2)}\n`);
  return failure;
}

/** What report.json says while verification runs: a run stopped outright during it leaves this. */
const UNFINISHED: VerificationNotDone = {
  status: 'not-done',
  error: { code: 'VERIFICATION_UNFINISHED', message: 'verification had not finished when the run stopped (killed during it); chatport verify compares what the platform holds' },
};

/**
 * Messages this run sent again and counted imported (an insert stage without `thread:` sends every record
 * and cannot see which the platform still holds) that verification found deleted on the platform after an
 * earlier run imported them: the platform skipped their taken keys, so the report counts them skipped
 * (breakdown `deleted`) and lists them, as a run that compares messages does before sending (held-settle.ts).
 */
async function recountResent(report: RunReport, paths: RunPaths, resent: readonly Difference[]): Promise<void> {
  for (const stage of ['members', 'messages'] as const) {
    const records = resent.filter((d) => d.stage === stage);
    const counts = report.stages[stage];
    if (records.length === 0 || counts === undefined) continue;
    counts.imported -= records.length;
    counts.skipped += records.length;
    counts.deleted = (counts.deleted ?? 0) + records.length;
    // Appended: the stage's own skipped records are listed there already.
    const lines = records.map(({ position, deletedSinceImport: d }): SkippedLine => ({
      stage, file: position!.file, ...(position!.line === undefined ? {} : { line: position!.line }), index: position!.index, rule: -1,
      because: deletedSinceImportReason(d!.runId, d!.idempotencyKey),
    }));
    await mkdir(paths.skippedDir(report.runId), { recursive: true });
    await appendFile(paths.stageSkipped(report.runId, stage), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    report.skippedDir = paths.skippedDir(report.runId);
  }
  report.totals = sumTotals(report.stages);
}

/** A trial's verification compares what verificationScope says (latest-run.ts); any other run, its input and rejects. */
async function whatToVerify(config: PipelineConfig, report: RunReport, stateDir: string): Promise<{ config: PipelineConfig; rejectsFiles: string[] }> {
  const run = config.trial ? await findLatestRun(stateDir) : undefined;
  if (run === undefined) return { config, rejectsFiles: report.rejectsFile ? [report.rejectsFile] : [] };
  const { trial, rejectsFiles } = verificationScope(run);
  const { trial: _cut, ...whole } = config;
  return { config: trial ? config : whole, rejectsFiles };
}
