import type { JournalEvent } from '../state/events.js';
import { readJournal } from '../state/journal.js';
import { RunPaths } from '../state/run-paths.js';
import { foldRunState } from '../state/run-state.js';

/** The latest run of a state folder (its folder and rejects file), when there is one. */
export async function findLatestRun(stateDir: string): Promise<{ runId: string; runDir: string; rejectsFile: string } | undefined> {
  const paths = new RunPaths(stateDir);
  const { events } = await readJournal<JournalEvent>(paths.journal);
  const runId = foldRunState(events).runId;
  return runId === undefined ? undefined : { runId, runDir: paths.runDir(runId), rejectsFile: paths.rejects(runId) };
}
