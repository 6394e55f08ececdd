import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { emptyCounts, sumTotals, type RunReport, type StageCounts } from '../report.js';
import { readRunStatus, type RunStatusView } from '../import/read-status.js';
import type { StateOwner } from '../state/state-owner.js';
import type { StageName } from '../state/events.js';
import { shardStateDirs } from './shard-state.js';
import { RunPaths } from '../state/run-paths.js';

/** Where a sharded run stands: each shard's status, and the run seen as one. */
export interface ShardedStatus {
  count: number;
  shards: Array<RunStatusView & { index: number }>;
  /**
   * `done`: every shard's latest run ended and none failed; `unfinished`: some shard has not started or is
   * still going (its next start resumes it); `failed`: some shard's latest attempt failed (not one resumed since).
   */
  state: 'done' | 'unfinished' | 'failed';
  /** Shards whose latest run has not ended well (not started, unfinished, failed). */
  waiting: number[];
  /** Of those, the shards with no run yet (`verify --shards` exits 75 naming them). */
  notStarted: number[];
  /** The shards' last reports added up: users once (every shard ensures them; the first shard with a report counts them), the rest summed. */
  combined: { stages: Partial<Record<StageName, StageCounts>>; totals: RunReport['totals'] };
  /**
   * Runs of the same state root split over another count that started after every run of these shards (the
   * count was changed since): this view is then not the latest. Newest first.
   */
  newer?: ShardCountRun[];
}

/** The newest run (run ids sort by start time) of the shard folders of one count under a state root. */
export interface ShardCountRun {
  count: number;
  runId: string;
}

const ENDED_WELL = new Set(['succeeded', 'completed-with-rejects']);

export async function readShardedStatus(stateDir: string, count: number, pipeline?: StateOwner): Promise<ShardedStatus> {
  const shards = await Promise.all(shardStateDirs(stateDir, count).map(async (dir, index) => ({ index, ...(await readRunStatus(dir, pipeline)) })));
  const waiting = shards.filter((s) => s.state !== 'ended' || !ENDED_WELL.has(s.lastReport?.status ?? '')).map((s) => s.index);
  const notStarted = shards.filter((s) => s.state === 'none').map((s) => s.index);
  // A failed report of an earlier attempt is not where the shard stands: its next attempt is running (or was killed) and resumes the run.
  const failed = shards.some((s) => s.lastReport?.status === 'failed' && s.lastReport.attempt === s.attempt);
  const stages = combineStages(shards.map((s) => s.lastReport));
  const counts = await shardCountRuns(stateDir);
  const own = counts.find((c) => c.count === count)?.runId ?? '';
  const newer = counts.filter((c) => c.count !== count && c.runId > own);
  return {
    count, shards, state: failed ? 'failed' : waiting.length > 0 ? 'unfinished' : 'done', waiting, notStarted, combined: { stages, totals: sumTotals(stages) },
    ...(newer.length > 0 ? { newer } : {}),
  };
}

const SHARD_FOLDER = /^shard-(\d+)-of-(\d+)$/;

/** Every shard count with shard folders under a state root, and its newest run, newest first. */
export async function shardCountRuns(stateDir: string): Promise<ShardCountRun[]> {
  const newest = new Map<number, string>();
  for (const name of await listNames(stateDir)) {
    const m = SHARD_FOLDER.exec(name);
    if (!m) continue;
    const count = Number(m[2]);
    const runId = (await newestRunOf(join(stateDir, name))) ?? '';
    if (!newest.has(count) || runId > newest.get(count)!) newest.set(count, runId);
  }
  return [...newest].map(([count, runId]) => ({ count, runId })).sort((a, b) => (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
}

/**
 * A state folder's newest run (its folder under `runs/`), a dry run's left out: it sends nothing and
 * journals nothing, so it is no run of the migration (a dry run over 3 shards says nothing of the 4 the
 * migration runs on). Undefined when there is none.
 */
export async function newestRunOf(stateDir: string): Promise<string | undefined> {
  const paths = new RunPaths(stateDir);
  for (const runId of (await listNames(join(stateDir, 'runs'))).sort().reverse()) {
    const status = await readFile(paths.report(runId), 'utf8').then((t) => (JSON.parse(t) as { status?: unknown }).status, () => undefined);
    if (status !== 'dry-run') return runId;
  }
  return undefined;
}

async function listNames(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/**
 * Adds up the shards' stage counts; the users stage is counted once (each shard reads every user), from the
 * first shard whose report has it: shard 0's, or another's while shard 0 has not run.
 */
export function combineStages(reports: ReadonlyArray<RunReport | undefined>): Partial<Record<StageName, StageCounts>> {
  const out: Partial<Record<StageName, StageCounts>> = {};
  const usersFrom = reports.findIndex((r) => r?.stages.users !== undefined);
  for (const [index, report] of reports.entries()) {
    if (report === undefined) continue;
    for (const [stage, counts] of Object.entries(report.stages) as Array<[StageName, StageCounts]>) {
      if (stage === 'users' && index !== usersFrom) continue;
      out[stage] = addCounts(out[stage] ?? emptyCounts(), counts);
    }
  }
  return out;
}

const SUMMED = ['read', 'imported', 'updated', 'duplicates', 'rejected', 'refused', 'skipped', 'changed', 'pending', 'chunks', 'bytesRead', 'matched', 'replies', 'orphans', 'moved'] as const;

/** Of `replies` / `orphans`: how many were already there (see StageCounts). */
const HELD = [['replies', 'repliesHeld'], ['orphans', 'orphansHeld']] as const;

function addCounts(a: StageCounts, b: StageCounts): StageCounts {
  const sum: StageCounts = { ...a, jobs: { submitted: a.jobs.submitted + b.jobs.submitted, finished: a.jobs.finished + b.jobs.finished, failed: a.jobs.failed + b.jobs.failed } };
  for (const k of SUMMED) if (a[k] !== undefined || b[k] !== undefined) (sum as unknown as Record<string, number>)[k] = (a[k] ?? 0) + (b[k] ?? 0);
  for (const [count, held] of HELD) {
    // Unknown for a shard whose replies an earlier attempt settled: then unknown for the whole.
    const known = (c: StageCounts) => (c[count] ? c[held] : 0);
    const [x, y] = [known(a), known(b)];
    if (x === undefined || y === undefined || (a[held] === undefined && b[held] === undefined)) delete sum[held];
    else sum[held] = x + y;
  }
  // The shards ran side by side: the stage took as long as its slowest shard.
  sum.durationMs = Math.max(a.durationMs, b.durationMs);
  return sum;
}
