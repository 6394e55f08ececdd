import type { ShardSpec, StageConfig } from '../../config/index.js';
import type { RecordPosition } from '../../formats/index.js';
import type { Processed } from '../../transform/index.js';
import { processedChannelKey } from '../import/trial.js';
import { shardOfKey } from './shard-spec.js';

/**
 * Which records a shard takes. Users go to every shard (each makes sure the platform holds them before its
 * channels; the same idempotency keys make the platform create each once: docs/sharding.md). A channel, its
 * members and its messages go to the shard its key hashes to, so each channel is written by one process,
 * in order. A record that names no channel (a row too broken to say) goes by its position, so exactly one
 * shard reports it.
 */
export const shardTakesAll = (stage: StageConfig): boolean => stage.stage === 'users';

export const ownsChannel = (shard: ShardSpec, channelKey: string): boolean => shardOfKey(channelKey, shard.count) === shard.index;

export const ownsPosition = (shard: ShardSpec, position: RecordPosition): boolean =>
  shardOfKey(`${position.file}\u0000${position.index}`, shard.count) === shard.index;

/** For a record before mapping: its channel key (undefined when it names none) and position. */
export function ownsRecord(shard: ShardSpec, channelKey: string | undefined, position: RecordPosition): boolean {
  return channelKey !== undefined ? ownsChannel(shard, channelKey) : ownsPosition(shard, position);
}

/** For a record an export reader mapped. */
export function ownsProcessed(shard: ShardSpec, stage: StageConfig, p: Processed): boolean {
  return ownsRecord(shard, processedChannelKey(stage, p), p.position);
}

/** Keeps the records of a batch this shard owns (in place: the batch is the reader's own). */
export function keepOwned(batch: Processed[], owns: (p: Processed) => boolean): Processed[] {
  let kept = 0;
  for (const p of batch) if (owns(p)) batch[kept++] = p;
  batch.length = kept;
  return batch;
}
