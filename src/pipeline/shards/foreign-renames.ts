import type { ShardSpec } from '../../config/index.js';
import type { RecordPosition } from '../../formats/index.js';
import { ChatportError } from '../../shared/errors.js';
import { describePosition, type Accepted } from '../../transform/index.js';
import { ourNamesByKey, type Holder } from '../import/name-holders.js';
import { shardOfKey } from './shard-spec.js';

/** The record of another shard that renames one of this pipeline's channels away from a name. */
interface Renamer {
  key: string;
  position: RecordPosition;
  to: string;
}

/**
 * `mode: upsert`, sharded: names this pipeline's channels hold on the platform that another shard's record
 * renames away (docs/sharding.md). One run patches a renamed channel when its record comes, so a later
 * record may take the name it left (stage-checks.ts `released`). Sharded, the two records may fall to
 * different shards, and the name is free only once the renaming shard has sent its patch: run first, the
 * taking shard rejected its record, and the platform's names depended on the pods' order. The taking shard
 * cannot send the rename itself (one process writes each channel), nor wait for a pod that may not be
 * running, so it stops with a temporary failure (75) naming the shard to run first; the scheduler's retry
 * resumes it, and by then the platform holds the rename.
 *
 * Wherever the renaming record is in the input: run after it, the taking shard finds the name free, so
 * waiting for it when run before is what makes the outcome the same in either order. Only a rename one run
 * sends counts (sent-channels.ts: not refused against the platform, so its own new name is free there), so
 * the shard waited for never waits in turn on a rename, and two shards never wait for each other: a swap of
 * two names is rejected on both sides, as in one run.
 */
export class ForeignRenames {
  /** A held name → the record of another shard renaming its holder away. */
  private readonly renamedAway = new Map<string, Renamer>();

  /** `sent`: every channel record one run sends, by source key (sent-channels.ts sentChannelRecords). */
  constructor(
    holders: ReadonlyMap<string, Holder>,
    private readonly shard: ShardSpec,
    sent: ReadonlyMap<string, Accepted>,
  ) {
    for (const [key, held] of ourNamesByKey(holders)) {
      const record = sent.get(key);
      const name = (record?.item as Record<string, unknown> | undefined)?.name;
      if (record === undefined || typeof name !== 'string' || name === held || shardOfKey(key, shard.count) === shard.index) continue;
      this.renamedAway.set(held, { key, position: record.position, to: name });
    }
  }

  /**
   * This shard's record asking for `name`, which the checks find held by another channel and nothing else
   * refuses: when a record of another shard renames that channel away, the run stops until that shard has
   * run (SHARD_ORDER, 75).
   */
  refuseBeforeRename(processed: Accepted, name: string): void {
    const renamer = this.renamedAway.get(name);
    if (renamer === undefined) return;
    const first = shardOfKey(renamer.key, this.shard.count);
    throw new ChatportError(
      `channel record ${describePosition(processed.position)} (source key ${processed.sourceKey}) takes the name '${name}', which the platform's channel of source key ${renamer.key} still holds; that channel's record (${describePosition(renamer.position)}) renames it to '${renamer.to}', and shard ${first} of ${this.shard.count} imports it. Shard ${first} of ${this.shard.count} must run its channels stage first: this shard stops before sending the record (temporary, exit 75) and its next attempt resumes, taking the name once that shard has renamed the channel`,
      {
        code: 'SHARD_ORDER',
        transient: true,
        details: { sourceKey: processed.sourceKey, name, heldBy: renamer.key, renamedTo: renamer.to, runFirst: first, shard: this.shard },
      },
    );
  }
}
