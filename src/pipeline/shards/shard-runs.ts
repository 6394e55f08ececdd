import { join } from 'node:path';
import type { TrialSpec } from '../../config/index.js';
import { ChatportError, UsageError } from '../../shared/errors.js';
import { findLatestRun, verificationScope } from '../verify/latest-run.js';
import { notStartedPhrase, shardStateDirs } from './shard-state.js';
import { shardCountRuns } from './combined-status.js';

/** What `chatport verify` takes from the runs it verifies: their rejects (not expected) and where to write. */
export interface RunsToVerify {
  label: string;
  runDir: string;
  rejectsFiles: string[];
  /** The runs' `channel-ids.json` files, oldest first (run-verify.ts VerifyOptions.channelIdFiles). */
  channelIdFiles: string[];
  /** The state folders whose runs' imports say why a message is missing (run-verify.ts VerifyOptions.stateDirs). */
  stateDirs: string[];
  /** The runs verified: their own imports are this export's records, not an earlier export's (earlier-roots.ts). */
  runIds: string[];
  /** Where onExisting matches were kept (the users stage's run folder). */
  usersRunDir: string;
  trial?: TrialSpec;
  /** With shards: those whose latest run has not ended (failed, or stopped): what they did not send yet is missing. */
  unfinished?: number[];
  /** Without shards: the latest run, when it has not ended (killed, failed or stopped): what it did not send yet is missing. */
  unfinishedRun?: string;
}

/** The runs `chatport verify` compares against: the state folder's latest run, or with `shards` every shard's. */
export async function findRunsToVerify(stateDir: string, shards: number | undefined): Promise<RunsToVerify | undefined> {
  if (shards !== undefined) return findShardRuns(stateDir, shards);
  const run = await findLatestRun(stateDir);
  if (run === undefined) return undefined;
  const label = run.wholeInputRun ? `run ${run.runId} (a trial), with run ${run.wholeInputRun.runId}, which took the whole input` : `run ${run.runId}${run.trial ? ' (a trial: the part of the input it took)' : ''}`;
  return { label, runDir: run.runDir, usersRunDir: run.runDir, stateDirs: [stateDir], runIds: [run.runId], channelIdFiles: run.channelIdFiles, ...verificationScope(run), ...(run.ended ? {} : { unfinishedRun: run.runId }) };
}

/**
 * The latest run of every shard of an N-way run: their rejects together (users are rejected alike by
 * every shard), verify.json in `<state>/verify-shards-of-<n>`. Every shard must have run: a shard that has
 * not would show as missing records, which is not what the user asked about. A shard not started yet is
 * temporary (SHARDS_NOT_STARTED, exit 75: a scheduler tries again later), not a usage error (64 says "fix
 * your command", and the command is right).
 */
export async function findShardRuns(stateDir: string, count: number): Promise<RunsToVerify> {
  const stateDirs = shardStateDirs(stateDir, count);
  const runs = await Promise.all(stateDirs.map((dir) => findLatestRun(dir)));
  const notStarted = runs.flatMap((r, i) => (r === undefined ? [i] : []));
  if (notStarted.length > 0) {
    // The count was changed since (4 shards, then 3): these shards will never start, so "try again later" would be retried for ever.
    const own = runs.reduce((newest, r) => (r !== undefined && r.runId > newest ? r.runId : newest), '');
    const newer = (await shardCountRuns(stateDir)).find((c) => c.count !== count && c.runId > own);
    if (newer) throw new UsageError(`${notStartedPhrase(notStarted, count)} under ${stateDir}, and a run split over ${newer.count} shards (${newer.runId}) started since: verify --shards ${newer.count}`);
    const started = runs.findIndex((r) => r !== undefined);
    const one = started < 0 ? '' : `, or verify shard ${started} alone with --state ${join(stateDir, `shard-${started}-of-${count}`)}`;
    throw new ChatportError(`${notStartedPhrase(notStarted, count)} under ${stateDir}: verify the shards as one once every shard has run (try again later)${one}`, {
      code: 'SHARDS_NOT_STARTED', transient: true, details: { notStarted, count },
    });
  }
  const found = runs.map((r) => r!);
  if (found.some((r) => r.trial)) throw new UsageError('a shard\'s latest run was a trial (--limit/--sample): verify it alone with its own --state');
  const unfinished = found.flatMap((r, i) => (r.ended ? [] : [i]));
  return {
    label: `${count} shards: runs ${found.map((r) => r.runId).join(', ')}`, runDir: join(stateDir, `verify-shards-of-${count}`), rejectsFiles: found.map((r) => r.rejectsFile), channelIdFiles: found.flatMap((r) => r.channelIdFiles), usersRunDir: found[0]!.runDir, stateDirs,
    runIds: found.map((r) => r.runId),
    ...(unfinished.length > 0 ? { unfinished } : {}),
  };
}
