import type { TrialSpec } from '../../config/index.js';
import type { JournalEvent } from '../state/events.js';
import { readJournalEvents } from '../state/journal.js';
import { RunPaths } from '../state/run-paths.js';
import { RunStateFold } from '../state/run-state.js';

/** The latest run of a state folder (its folder, rejects file and trial cut), when there is one. */
export async function findLatestRun(stateDir: string): Promise<{ runId: string; runDir: string; rejectsFile: string; trial?: TrialSpec } | undefined> {
  const paths = new RunPaths(stateDir);
  const fold = new RunStateFold();
  await readJournalEvents<JournalEvent>(paths.journal, (e) => fold.add(e));
  const { runId, trial } = fold.state;
  return runId === undefined ? undefined : { runId, runDir: paths.runDir(runId), rejectsFile: paths.rejects(runId), ...(trial ? { trial } : {}) };
}
