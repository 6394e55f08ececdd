import type { TrialSpec } from '../../config/index.js';
import type { JournalEvent } from '../state/events.js';
import { readJournalEvents } from '../state/journal.js';
import { RunPaths } from '../state/run-paths.js';
import { RunStateFold } from '../state/run-state.js';

export interface LatestRun {
  runId: string;
  runDir: string;
  rejectsFile: string;
  /** Whether it ended; one that did not (killed, or failed) resumes on the next import. */
  ended: boolean;
  /** The latest run's trial cut. */
  trial?: TrialSpec;
  /**
   * When the latest run is a trial: the last run before it that took the whole input and ended. The
   * platform then holds what that run imported, beyond the trial's part, so that is what to verify.
   */
  wholeInputRun?: { runId: string; rejectsFile: string };
  /** Every run's `channel-ids.json` (present or not), oldest first: which channel a key held twice is chatport's. */
  channelIdFiles: string[];
}

/** The latest run of a state folder (its folder, rejects file and trial cut), when there is one. */
export async function findLatestRun(stateDir: string): Promise<LatestRun | undefined> {
  const paths = new RunPaths(stateDir);
  const fold = new RunStateFold();
  const whole = new WholeInputRuns();
  const runIds = new Set<string>();
  await readJournalEvents<JournalEvent>(paths.journal, (e) => {
    fold.add(e);
    whole.add(e);
    if (e.t === 'run-started') runIds.add(e.runId);
  });
  const { runId, trial, ended } = fold.state;
  if (runId === undefined) return undefined;
  const wholeRunId = trial ? whole.lastEndedBefore(runId) : undefined;
  return {
    runId, runDir: paths.runDir(runId), rejectsFile: paths.rejects(runId), ended, ...(trial ? { trial } : {}), channelIdFiles: [...runIds].map((id) => paths.channelIds(id)),
    ...(wholeRunId ? { wholeInputRun: { runId: wholeRunId, rejectsFile: paths.rejects(wholeRunId) } } : {}),
  };
}

/**
 * What verifying the latest run compares with: the trial's part of the input and its rejects, unless an
 * earlier run took the whole input (then the platform holds that run's records beyond the trial's part,
 * so the whole input, neither run's rejects expected). One rule for `chatport verify` and the import's own.
 */
export function verificationScope(run: LatestRun): { rejectsFiles: string[]; trial?: TrialSpec } {
  if (run.wholeInputRun) return { rejectsFiles: [run.wholeInputRun.rejectsFile, run.rejectsFile] };
  return { rejectsFiles: [run.rejectsFile], ...(run.trial ? { trial: run.trial } : {}) };
}

/** Runs without a trial cut that ended having read all their input (succeeded, or completed with rejects), in journal order. */
class WholeInputRuns {
  private readonly untrimmed = new Set<string>();
  private readonly ended: string[] = [];

  add(e: JournalEvent): void {
    if (e.t === 'run-started' && e.attempt === 1 && !e.trial) this.untrimmed.add(e.runId);
    if (e.t === 'run-ended' && this.untrimmed.has(e.runId) && (e.status === 'succeeded' || e.status === 'completed-with-rejects')) this.ended.push(e.runId);
  }

  lastEndedBefore(runId: string): string | undefined {
    return this.ended.filter((id) => id !== runId).at(-1);
  }
}
