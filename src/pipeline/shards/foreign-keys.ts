import { spillFolderPath, SPILL_PREFIXES } from '../../shared/spill-folders.js';
import type { RecordPosition, SourceItem } from '../../formats/index.js';
import type { StageConfig } from '../../config/index.js';
import { PositionIndex, SpillingKeyTable, compileSkipRules, describePosition, sourceKeyOf, textFingerprint, type Accepted, type Rejected } from '../../transform/index.js';

/**
 * The source key another shard's record holds, before mapping (its `key` fields as the stage processor
 * reads them). None for a record a skip rule leaves out: one run never checks a skipped record's key, so a
 * later record with that key (a message moved to another channel, its old copy marked deleted) is imported.
 */
export function foreignKeyReader(stage: StageConfig): (item: SourceItem) => string | undefined {
  const fields = typeof stage.key === 'string' ? [stage.key] : stage.key;
  const skipped = compileSkipRules(stage.skip);
  return (item) => ('record' in item && skipped(item.record) === -1 ? sourceKeyOf(fields.map((f) => item.record[f])) : undefined);
}

/** The two 32-bit hashes a source key is kept by (as the duplicate check keeps keys). */

/**
 * The keys of other shards' records, as one shard reads a stage (docs/sharding.md). A key in two channels
 * that fall to different shards would be sent by both, and the platform keeps one of them (one idempotency
 * key): unsharded, the second is rejected ("first seen … with other content"). So each shard notes the keys
 * of the records it leaves to others, in input order, and rejects its own record whose key one of them held
 * first; the other shard does the same the other way round, so exactly the first record is sent. Two
 * records of one channel are always in the same shard, and its duplicate check tells them apart as before.
 *
 * With `duplicates: last-wins` the last record of a key wins instead, so what matters is a later record of
 * another shard: `keep: 'last'` notes each key's last record (noted before the shard's own records are
 * read: readSourceBatches reads the input once more for that), and `supersededBy` names it.
 *
 * Memory and disk as the duplicate check's (SpillingKeyTable: bounded, spilled under the system's temporary
 * folder), plus a PositionIndex to name the other record.
 */
export class ForeignKeys {
  private readonly table: SpillingKeyTable;
  private readonly positions = new PositionIndex();

  constructor(
    /** The stage's key field(s), for the reason. */
    private readonly keyName: string,
    /** Which record of a key is kept: the first (the default duplicate check) or the last (last-wins). */
    private readonly keep: 'first' | 'last' = 'first',
    spillDir = spillFolderPath(SPILL_PREFIXES.foreignKeys),
  ) {
    this.table = new SpillingKeyTable(spillDir);
  }

  /** Another shard's record, at `seq` in the stage's input order (every record counted, increasing). */
  noteForeign(sourceKey: string | undefined, position: RecordPosition, seq: number): void {
    if (sourceKey === undefined) return;
    const [hi, lo] = textFingerprint(sourceKey);
    const found = this.table.lookup(hi, lo);
    if (found !== undefined && this.keep === 'first') return;
    this.positions.note(seq, position);
    if (found === undefined) this.table.insert(hi, lo, 0, seq);
    else found.set(0, seq);
  }

  /** This shard's record, in input order: rejected when another shard's record held its key first. */
  check<T extends Accepted>(processed: T): T | Rejected {
    const found = this.table.lookup(...textFingerprint(processed.sourceKey));
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

  /** `keep: 'last'`: where another shard's record of this key comes after `seq`, the one that wins. */
  supersededBy(sourceKey: string, seq: number): RecordPosition | undefined {
    const found = this.table.lookup(...textFingerprint(sourceKey));
    return found !== undefined && found.ordinal > seq ? this.positions.at(found.ordinal) : undefined;
  }

  /** Removes the spilled keys' files. */
  close(): void {
    this.table.close();
  }
}
