import { readdir, readFile } from 'node:fs/promises';
import type { RunReport, RunStatus } from '../report.js';
import type { JournalEvent } from '../state/events.js';
import { readJournal } from '../state/journal.js';
import { RunPaths } from '../state/run-paths.js';
import { folderBytes } from './folder-bytes.js';

/**
 * One run of a state folder as `chatport runs` shows it. `status`: the journal's end (or the report's,
 * for a dry run, which the journal does not record); `unfinished` for the run the next import resumes;
 * `unknown` for a folder with neither (a dry run still going, or a copy from elsewhere).
 */
export interface RunEntry {
  runId: string;
  runDir: string;
  status: RunStatus | 'abandoned' | 'unfinished' | 'unknown';
  /** Only finished runs may be pruned; never the unfinished one a resume needs. */
  finished: boolean;
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  totals?: RunReport['totals'];
  bytes: number;
}

interface JournalRun {
  attempts: number;
  startedAt: string;
  ended?: { status: string; at: string };
}

/** The runs of a state folder, oldest first (run ids are ULIDs, which sort by time). Reads only. */
export async function listRuns(stateDir: string): Promise<RunEntry[]> {
  const paths = new RunPaths(stateDir);
  const journal = journalRuns((await readJournal<JournalEvent>(paths.journal, (e) => e.t === 'run-started' || e.t === 'run-ended')).events);
  const folders = await readdir(`${stateDir}/runs`).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error)));
  // Runs whose folder was pruned stay in the journal; only the unfinished one is listed without its folder.
  const unfinished = [...journal].filter(([, run]) => !run.ended).map(([id]) => id);
  const ids = [...new Set([...folders, ...unfinished])].sort();
  const entries: RunEntry[] = [];
  for (const runId of ids) entries.push(await describeRun(paths, runId, journal.get(runId)));
  return entries;
}

function journalRuns(events: readonly JournalEvent[]): Map<string, JournalRun> {
  const runs = new Map<string, JournalRun>();
  for (const e of events) {
    if (e.t === 'run-started') {
      const run = runs.get(e.runId);
      if (run) run.attempts = e.attempt;
      else runs.set(e.runId, { attempts: e.attempt, startedAt: e.at });
    } else if (e.t === 'run-ended') {
      const run = runs.get(e.runId);
      if (run) run.ended = { status: e.status, at: e.at };
    }
  }
  return runs;
}

async function describeRun(paths: RunPaths, runId: string, journal: JournalRun | undefined): Promise<RunEntry> {
  const runDir = paths.runDir(runId);
  const report = await readFile(paths.report(runId), 'utf8').then((t) => JSON.parse(t) as RunReport, () => undefined);
  const finished = journal ? journal.ended !== undefined : report?.status === 'dry-run';
  const status: RunEntry['status'] = journal?.ended ? (journal.ended.status as RunEntry['status']) : journal ? 'unfinished' : (report?.status ?? 'unknown');
  const startedAt = journal?.startedAt ?? report?.startedAt;
  const endedAt = journal?.ended?.at ?? report?.endedAt;
  const entry: RunEntry = { runId, runDir, status, finished, attempts: journal?.attempts ?? report?.attempt ?? 0, bytes: await folderBytes(runDir) };
  if (startedAt) entry.startedAt = startedAt;
  if (endedAt) entry.endedAt = endedAt;
  if (startedAt && endedAt) entry.durationMs = Date.parse(endedAt) - Date.parse(startedAt);
  if (report) entry.totals = report.totals;
  return entry;
}
