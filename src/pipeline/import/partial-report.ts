import type { RunReport, StageCounts } from '../report.js';
import type { StageName } from '../state/events.js';

/**
 * A run that fails in the middle of a stage still reports what that stage sent and imported: its counts
 * as last reported (runStage reports them once more as it stops). Records read but neither imported nor
 * rejected nor skipped — cut into chunks not yet sent, or in jobs the failure left unsettled — are
 * `pending`: a resumed run sends them. So the accounting line holds for a failed run too.
 */
export function addFailedStageCounts(stages: Partial<Record<StageName, StageCounts>>, latest: Partial<Record<StageName, StageCounts>>): void {
  for (const [stage, counts] of Object.entries(latest) as Array<[StageName, StageCounts]>) {
    if (stages[stage]) continue;
    const settled = counts.imported + counts.duplicates + counts.rejected + counts.skipped;
    stages[stage] = { ...counts, jobs: { ...counts.jobs }, pending: Math.max(counts.pending, counts.read - settled) };
  }
}

const REPORT = Symbol('chatport.report');

/** Hands the report of a failed run to the caller (the CLI prints it) along with the error, without putting it in the error's details. */
export function attachReport(error: unknown, report: RunReport): unknown {
  if (error !== null && typeof error === 'object') Object.defineProperty(error, REPORT, { value: report, enumerable: false });
  return error;
}

/** The report a failed runImport attached to its error, if any. */
export function reportOf(error: unknown): RunReport | undefined {
  return error !== null && typeof error === 'object' ? (error as { [REPORT]?: RunReport })[REPORT] : undefined;
}
