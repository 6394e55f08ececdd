import { int64, type Int64 } from '../../shared/int64.js';
import { StringKeyTable } from '../../shared/string-key-table.js';
import { grownTo } from '../../shared/typed-arrays.js';

/**
 * The replies the journal says were sent: reply key → the platform's id and whether it went into its
 * channel (an orphan). A migration sends millions of replies and keeps this table to the end of the run
 * (and rebuilds it on resume), so it is a StringKeyTable with the ids in a BigInt64Array: about 30 bytes a
 * reply plus its key, where a Map of strings to objects took about 200 and stops at 2^24 entries.
 */
export class SentReplies {
  private readonly keys = new StringKeyTable('sent replies table');
  private ids = new BigInt64Array(0);
  private orphanFlags = new Uint8Array(0);
  private orphanCount = 0;

  get size(): number {
    return this.keys.size;
  }

  /** How many went into their channel because their root has no thread. */
  get orphans(): number {
    return this.orphanCount;
  }

  get(key: string): { id: Int64; orphan: boolean } | undefined {
    const entry = this.keys.find(key);
    return entry === -1 ? undefined : { id: int64(this.ids[entry]!), orphan: this.orphanFlags[entry] === 1 };
  }

  set(key: string, sent: { id: Int64; orphan: boolean }): void {
    const before = this.keys.size;
    const entry = this.keys.add(key);
    const isNew = this.keys.size > before;
    if (this.ids.length < this.keys.capacity) {
      this.ids = grownTo(this.ids, this.keys.capacity);
      this.orphanFlags = grownTo(this.orphanFlags, this.keys.capacity);
    }
    if (!isNew) this.orphanCount -= this.orphanFlags[entry]!;
    this.ids[entry] = BigInt(sent.id);
    this.orphanFlags[entry] = sent.orphan ? 1 : 0;
    this.orphanCount += this.orphanFlags[entry]!;
  }
}
