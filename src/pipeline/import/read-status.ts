import { readFile } from 'node:fs/promises';
import type { RunReport } from '../report.js';
import type { JournalEvent, StageName } from '../state/events.js';
import { readJournalEvents } from '../state/journal.js';
import { RunPaths } from '../state/run-paths.js';
import { RunStateFold } from '../state/run-state.js';
import { refuseForeignState, type StateOwner } from '../state/state-owner.js';

export interface StageStatus {
  chunksWritten: number;
  chunksDone: number;
  partsInFlight: number;
  refused: number;
  inputRead: boolean;
  done: boolean;
}

export interface RunStatusView {
  stateDir: string;
  runId?: string;
  attempt: number;
  /** `none`: no run yet; `unfinished`: the next `chatport import` resumes it; `ended`: the next starts anew. */
  state: 'none' | 'unfinished' | 'ended';
  stages: Record<StageName, StageStatus>;
  lastReport?: RunReport;
}

/**
 * Where the pipeline's latest run stands, from its journal and last report. Reads only. With `pipeline`, a
 * state folder of another pipeline is refused (STATE_FOREIGN, exit 78), as an import would refuse it.
 */
export async function readRunStatus(stateDir: string, pipeline?: StateOwner): Promise<RunStatusView> {
  const paths = new RunPaths(stateDir);
  const fold = new RunStateFold();
  let lastRunPipeline: string | undefined;
  await readJournalEvents<JournalEvent>(paths.journal, (e) => {
    fold.add(e);
    if (e.t === 'run-started') lastRunPipeline = e.pipeline;
  });
  if (pipeline) await refuseForeignState(stateDir, pipeline, lastRunPipeline);
  const run = fold.state;
  const stages = {} as Record<StageName, StageStatus>;
  for (const [name, s] of Object.entries(run.stages) as Array<[StageName, (typeof run.stages)[StageName]]>) {
    let chunksDone = 0;
    let partsInFlight = 0;
    let refused = 0;
    for (const c of s.chunks.values()) {
      if (c.done) chunksDone++;
      partsInFlight += c.inFlight.size;
      refused += c.refused.size;
    }
    stages[name] = { chunksWritten: s.chunks.size, chunksDone, partsInFlight, refused, inputRead: s.input !== undefined, done: s.done };
  }
  const view: RunStatusView = { stateDir, attempt: run.attempt, state: run.runId === undefined ? 'none' : run.ended ? 'ended' : 'unfinished', stages };
  if (run.runId !== undefined) {
    view.runId = run.runId;
    const report = await readFile(paths.report(run.runId), 'utf8').then((t) => JSON.parse(t) as RunReport, () => undefined);
    if (report) view.lastReport = report;
  }
  return view;
}
