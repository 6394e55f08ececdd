import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordPosition } from '../../formats/index.js';
import type { StageConfig } from '../../config/index.js';
import { PositionIndex, SpillingKeyTable, describePosition, sourceKeyOf, textHash, type Accepted, type Rejected } from '../../transform/index.js';

/** A record's source key before mapping (its `key` fields as the stage processor reads them). */
export function rawSourceKey(stage: StageConfig, record: Record<string, unknown>): string | undefined {
  const fields = typeof stage.key === 'string' ? [stage.key] : stage.key;
  return sourceKeyOf(fields.map((f) => record[f]));
}

/**
 * The keys of other shards' records, as one shard reads a stage (docs/sharding.md). A key in two channels
 * that fall to different shards would be sent by both, and the platform keeps one of them (one idempotency
 * key): unsharded, the second is rejected ("first seen … with other content"). So each shard notes the keys
 * of the records it leaves to others, in input order, and rejects its own record whose key one of them held
 * first; the other shard does the same the other way round, so exactly the first record is sent. Two
 * records of one channel are always in the same shard, and its duplicate check tells them apart as before.
 *
 * Memory and disk as the duplicate check's (SpillingKeyTable: bounded, spilled under the system's temporary
 * folder), plus a PositionIndex to name the earlier record.
 */
export class ForeignKeys {
  private readonly table: SpillingKeyTable;
  private readonly positions = new PositionIndex();
  private seq = 0;

  constructor(
    /** The stage's key field(s), for the reason. */
    private readonly keyName: string,
    spillDir = join(tmpdir(), `chatport-foreign-keys-${process.pid}-${Math.random().toString(36).slice(2)}`),
  ) {
    this.table = new SpillingKeyTable(spillDir);
  }

  /** Another shard's record, in input order: its key is noted unless an earlier record held it. */
  noteForeign(sourceKey: string | undefined, position: RecordPosition): void {
    const seq = ++this.seq;
    if (sourceKey === undefined) return;
    const hi = textHash(sourceKey, 0x811c9dc5);
    const lo = textHash(sourceKey, 0x050c5d1f);
    if (this.table.lookup(hi, lo) !== undefined) return;
    this.positions.note(seq, position);
    this.table.insert(hi, lo, 0, seq);
  }

  /** This shard's record, in input order: rejected when another shard's record held its key first. */
  check<T extends Accepted>(processed: T): T | Rejected {
    const found = this.table.lookup(textHash(processed.sourceKey, 0x811c9dc5), textHash(processed.sourceKey, 0x050c5d1f));
    if (found === undefined) return processed;
    const first = describePosition(this.positions.at(found.ordinal));
    const key = JSON.stringify(processed.sourceKey);
    return {
      kind: 'rejected',
      position: processed.position,
      raw: processed.item,
      reasons: [
        {
          field: '',
          sourceField: this.keyName,
          expected: 'a source key not seen before in this stage',
          found: `key ${key}, first seen at ${first} in a channel of another shard`,
          message: `key ${key} (${this.keyName}) was first seen at ${first}, in a channel another shard imports; that record is the one imported. Fix the source, or make the key unique across channels (key: [channel, ${this.keyName}])`,
        },
      ],
    };
  }

  /** Removes the spilled keys' files. */
  close(): void {
    this.table.close();
  }
}
