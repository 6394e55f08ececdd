import { int64, type Int64 } from '../../shared/int64.js';
import { StringKeyTable } from '../../shared/string-key-table.js';
import { grownTo } from '../../shared/typed-arrays.js';
import type { JournalLine } from './journal.js';

/** Where the journal has a reply's update (`reply-updating`): the patched copy's id and the event's line. */
export interface ReplyUpdate {
  id: Int64;
  line: JournalLine;
}

/**
 * The replies whose copy was (being) patched, by reply key. A run may patch every reply (an upsert after a
 * mapping change), and this table lives to the end of the run (and is rebuilt on resume), so it holds no
 * content: what each copy held is read back from its journal line when a change line is written again.
 * About 40 bytes a reply plus its key (a Map of the events took about 270 bytes plus both bodies).
 */
export class ReplyUpdateTable {
  private readonly keys = new StringKeyTable('updated replies table');
  private ids = new BigInt64Array(0);
  private offsets = new Float64Array(0);
  private lengths = new Uint32Array(0);

  get size(): number {
    return this.keys.size;
  }

  get(key: string): ReplyUpdate | undefined {
    const entry = this.keys.find(key);
    if (entry === -1) return undefined;
    return { id: int64(this.ids[entry]!), line: { offset: this.offsets[entry]!, length: this.lengths[entry]! } };
  }

  set(key: string, update: ReplyUpdate): void {
    const entry = this.keys.add(key);
    if (this.ids.length < this.keys.capacity) {
      this.ids = grownTo(this.ids, this.keys.capacity);
      this.offsets = grownTo(this.offsets, this.keys.capacity);
      this.lengths = grownTo(this.lengths, this.keys.capacity);
    }
    this.ids[entry] = BigInt(update.id);
    this.offsets[entry] = update.line.offset;
    this.lengths[entry] = update.line.length;
  }
}
