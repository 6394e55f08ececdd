import { join } from 'node:path';
import type { ShardSpec } from '../../config/index.js';
import { shardFolderName } from './shard-spec.js';

/**
 * A shard's state folder: `<state>/shard-<i>-of-<n>`, under the state folder the run was given (a
 * volume all shards mount, or each its own). A shard rescheduled on another node resumes from it.
 */
export function shardStateDir(stateDir: string, shard: ShardSpec | undefined): string {
  return shard === undefined ? stateDir : join(stateDir, shardFolderName(shard));
}

/** Every shard's state folder of an N-way run, in shard order. */
export function shardStateDirs(stateDir: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => shardStateDir(stateDir, { index, count }));
}

/** The words `verify --shards` and `status --shards` both use for shards with no run yet: `shards 1, 2 of 3 have not started`. */
export function notStartedPhrase(notStarted: readonly number[], count: number): string {
  return `shard${notStarted.length === 1 ? '' : 's'} ${notStarted.join(', ')} of ${count} ${notStarted.length === 1 ? 'has' : 'have'} not started`;
}
