import { hash64 } from '../verify/key-set.js';
import { UsageError } from '../../shared/errors.js';
import type { ShardSpec } from '../../config/index.js';

export type { ShardSpec } from '../../config/index.js';

/** The most shards a run may be split into: far beyond the platform's concurrency, small enough to list. */
export const MAX_SHARDS = 1024;

/**
 * The shard that owns a channel: its source key hashed (FNV-1a, the same on every machine and Node
 * version), modulo the shard count. Every member and message of the channel goes with it.
 */
export function shardOfKey(key: string, count: number): number {
  return hash64(`shard\u0000${key}`)[0] % count;
}

export const describeShard = (shard: ShardSpec): string => `shard ${shard.index}/${shard.count}`;

/** The state folder of one shard under the run's state root: each shard resumes alone from its own. */
export const shardFolderName = (shard: ShardSpec): string => `shard-${shard.index}-of-${shard.count}`;

/** `--shard I/N`. */
export function parseShardFlag(value: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!m) throw new UsageError(`--shard takes INDEX/COUNT, e.g. --shard 0/4 (the first of four), not "${value}"`);
  return checkedShard(Number(m[1]), Number(m[2]), '--shard');
}

/** `--shards N`, a whole number from 1 to MAX_SHARDS. */
export function parseShardCount(value: string, flag = '--shards'): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SHARDS) throw new UsageError(`${flag} takes a whole number from 1 to ${MAX_SHARDS}, not "${value}"`);
  return n;
}

function checkedShard(index: number, count: number, source: string): ShardSpec {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS) throw new UsageError(`${source}: the shard count must be from 1 to ${MAX_SHARDS}, not ${count}`);
  if (!Number.isInteger(index) || index < 0 || index >= count)
    throw new UsageError(`${source}: the shard index must be from 0 to ${count - 1} (shards are numbered from 0), not ${index}`);
  return { index, count };
}

/**
 * Which shard this process is: `--shard I/N`; else a Kubernetes Indexed Job's JOB_COMPLETION_INDEX with
 * `--shards N` (a Job does not tell its pods the completion count); else an AWS Batch array job's
 * AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE (`--shards` may stand for the size). Undefined
 * for a run that is not sharded. Values that disagree are a usage error, never one silently winning: with
 * every pod given one fixed `--shard`, or a count other than the array's size, some shards would never run
 * while every process ended well.
 */
export function shardOf(flags: { shard?: string; shards?: string }, env: Record<string, string | undefined>): ShardSpec | undefined {
  const count = flags.shards === undefined ? undefined : parseShardCount(flags.shards);
  const scheduled = scheduledShard(env);
  if (flags.shard !== undefined) {
    const shard = parseShardFlag(flags.shard);
    if (count !== undefined && count !== shard.count) throw new UsageError(`--shard ${flags.shard} and --shards ${count} disagree on the shard count`);
    if (scheduled && (scheduled.index !== shard.index || (scheduled.count !== undefined && scheduled.count !== shard.count)))
      throw new UsageError(`--shard ${flags.shard} disagrees with ${scheduled.source}: pass --shards N and let the scheduler's index say which shard this is, or run the shard outside the indexed or array job`);
    return shard;
  }
  if (scheduled) {
    const total = count ?? scheduled.count;
    if (total === undefined) throw new UsageError(scheduled.name === 'JOB_COMPLETION_INDEX' ? "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): pass --shards N with the Job's completions, or --shard I/N" : 'AWS_BATCH_JOB_ARRAY_INDEX is set (an AWS Batch array job) but AWS_BATCH_JOB_ARRAY_SIZE is not: pass --shards N');
    if (scheduled.count !== undefined && total !== scheduled.count) throw new UsageError(`--shards ${total} disagrees with ${scheduled.source}: pass the array's size, or leave --shards out`);
    return checkedShard(scheduled.index, total, scheduled.name);
  }
  if (count !== undefined) throw new UsageError(`--shards ${count} needs the shard index: --shard I/${count}, or JOB_COMPLETION_INDEX (Kubernetes) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch)`);
  return undefined;
}

/** The index (and, for AWS Batch, the count) a scheduler gives this process, and the variables saying so. */
function scheduledShard(env: Record<string, string | undefined>): { index: number; count?: number; name: string; source: string } | undefined {
  const k8s = env.JOB_COMPLETION_INDEX;
  if (k8s !== undefined && k8s !== '') return { index: wholeNumber(k8s, 'JOB_COMPLETION_INDEX'), name: 'JOB_COMPLETION_INDEX', source: `JOB_COMPLETION_INDEX=${k8s}` };
  const batch = env.AWS_BATCH_JOB_ARRAY_INDEX;
  if (batch === undefined || batch === '') return undefined;
  const name = 'AWS_BATCH_JOB_ARRAY_INDEX';
  const index = wholeNumber(batch, name);
  const size = env.AWS_BATCH_JOB_ARRAY_SIZE;
  if (size === undefined || size === '') return { index, name, source: `${name}=${batch}` };
  return { index, count: parseShardCount(size, 'AWS_BATCH_JOB_ARRAY_SIZE'), name, source: `${name}=${batch}, AWS_BATCH_JOB_ARRAY_SIZE=${size}` };
}

function wholeNumber(value: string, name: string): number {
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`${name} must be a whole number, not "${value}"`);
  return Number(value);
}
