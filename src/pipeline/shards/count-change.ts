import type { ShardSpec } from '../../config/index.js';
import { UsageError } from '../../shared/errors.js';
import { latestRunEnded } from '../state/journal-tail.js';
import { RunPaths } from '../state/run-paths.js';
import { newestRunOf, shardCountRuns } from './combined-status.js';
import { notStartedPhrase, shardStateDirs } from './shard-state.js';

/** The newest run of one way of splitting a migration under a state root: `count` shards, or none (undefined). */
interface SplitRun {
  count: number | undefined;
  runId: string;
}

/**
 * Refuses to start a run split over another count (or not split) than the migration's latest run under the
 * same state root while that run is unfinished: 4 shards started, the Job changed to 3 before they all
 * ended. A channel's shard depends on the count, so the unfinished shards' channels would be sent by no
 * shard, their runs never end, and every shard of the new count would still exit 0. A usage error (64: a
 * scheduler stops, docs/sharding.md); `--restart` (the caller does not ask then) starts over with the new
 * count, after which its other shards go on as the latest run's.
 */
export async function refuseShardCountChange(stateRoot: string, shard: ShardSpec | undefined): Promise<void> {
  const latest = (await splitRuns(stateRoot))[0];
  if (latest === undefined || latest.count === shard?.count) return;
  const waiting = await waitingShards(stateRoot, latest.count);
  if (waiting === undefined) return;
  const was = latest.count === undefined ? `was not split and its latest run (${latest.runId}) is unfinished` : `was split over ${latest.count} shards and is unfinished (${waitingPhrase(waiting, latest.count)})`;
  const now = shard === undefined ? 'this run is not split' : `this shard is one of ${shard.count}`;
  const resume = latest.count === undefined ? 'Resume it without --shard/--shards' : `Resume it with --shards ${latest.count} (or --shard i/${latest.count})`;
  const instead = shard === undefined ? 'not split' : `split over ${shard.count}`;
  throw new UsageError(
    `the migration under ${stateRoot} ${was}, and ${now}: a channel's shard depends on the count, so the channels left to the unfinished run would be sent by no shard. ${resume}; to start over ${instead} instead, start this ${shard === undefined ? 'run' : 'shard'} with --restart (the earlier run stays unfinished; once one shard has started so, the others need no --restart)`,
    { count: shard?.count ?? null, unfinishedCount: latest.count ?? null, ...waiting },
  );
}

/** Every way the state root's runs were split, each with its newest run, newest first (run ids sort by start). */
async function splitRuns(stateRoot: string): Promise<SplitRun[]> {
  const runs: SplitRun[] = (await shardCountRuns(stateRoot)).filter((r) => r.runId !== '');
  const unsplit = await newestRunOf(stateRoot);
  if (unsplit !== undefined) runs.push({ count: undefined, runId: unsplit });
  return runs.sort((a, b) => (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0));
}

/** The shards of a split whose latest run has not ended, and those with none; undefined when every one ended. */
async function waitingShards(stateRoot: string, count: number | undefined): Promise<{ notEnded: number[]; notStarted: number[] } | undefined> {
  const dirs = count === undefined ? [stateRoot] : shardStateDirs(stateRoot, count);
  const states = await Promise.all(dirs.map((dir) => latestRunEnded(new RunPaths(dir).journal)));
  const notEnded = states.flatMap((s, i) => (s === 'unfinished' ? [i] : []));
  const notStarted = states.flatMap((s, i) => (s === 'none' ? [i] : []));
  return notEnded.length + notStarted.length > 0 ? { notEnded, notStarted } : undefined;
}

function waitingPhrase(waiting: { notEnded: number[]; notStarted: number[] }, count: number): string {
  const { notEnded, notStarted } = waiting;
  const one = notEnded.length === 1;
  const parts = notEnded.length > 0 ? [`shard${one ? '' : 's'} ${notEnded.join(', ')} of ${count} ${one ? 'has' : 'have'} not ended ${one ? 'its' : 'their'} latest run`] : [];
  if (notStarted.length > 0) parts.push(notStartedPhrase(notStarted, count));
  return parts.join('; ');
}
