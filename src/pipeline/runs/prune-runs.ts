import { rm } from 'node:fs/promises';
import { keepImportedIndex } from '../state/earlier-imports.js';
import { RunPaths } from '../state/run-paths.js';
import { listRuns, type RunEntry } from './list-runs.js';

export interface PruneOptions {
  /** Keep this many of the newest finished runs. */
  keep?: number;
  /** Remove only finished runs that ended (or started) longer ago than this. */
  olderThanMs?: number;
  /** Milliseconds since the epoch; default now. */
  now?: number;
  /** List what would go, remove nothing. */
  dryRun?: boolean;
}

export interface PruneResult {
  removed: RunEntry[];
  kept: RunEntry[];
  bytesFreed: number;
}

/**
 * Removes the folders of finished runs (chunks, rejects, reports), newest `keep` spared, and with
 * `olderThanMs` only those that old. Never the unfinished run a resume needs, nor a folder of unknown
 * state. The journal keeps its lines about removed runs (small; it is the resume's record), and each removed
 * run's imported index is written first (`<state>/imported/<run>/`: the keys it imported, without bodies),
 * so a record it imported and the platform deleted since is still known for what it is.
 */
export async function pruneRuns(stateDir: string, options: PruneOptions): Promise<PruneResult> {
  const runs = await listRuns(stateDir);
  const now = options.now ?? Date.now();
  const finishedNewestFirst = runs.filter((r) => r.finished).reverse();
  const spared = new Set(finishedNewestFirst.slice(0, options.keep ?? 0).map((r) => r.runId));
  const oldEnough = (r: RunEntry) => options.olderThanMs === undefined || now - Date.parse(r.endedAt ?? r.startedAt ?? new Date(now).toISOString()) > options.olderThanMs;
  const removed = finishedNewestFirst.filter((r) => !spared.has(r.runId) && oldEnough(r)).reverse();
  const paths = new RunPaths(stateDir);
  for (const run of options.dryRun ? [] : removed) {
    await keepImportedIndex(paths, run.runId);
    await rm(run.runDir, { recursive: true, force: true });
  }
  const gone = new Set(removed.map((r) => r.runId));
  return { removed, kept: runs.filter((r) => !gone.has(r.runId)), bytesFreed: removed.reduce((n, r) => n + r.bytes, 0) };
}
