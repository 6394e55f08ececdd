import { int64, type Int64 } from '../../shared/int64.js';
import { StringKeyTable } from '../../shared/string-key-table.js';
import { grownTo } from '../../shared/typed-arrays.js';

/** What the journal says of one sent reply (`held`: found already there, not sent by this run; `updated`: patched then). */
export interface SentReply {
  id: Int64;
  orphan: boolean;
  held?: true;
  updated?: true;
}

const ORPHAN = 1;
const HELD = 2;
const UPDATED = 4;

/**
 * The replies the journal says were sent: reply key → the platform's id, whether it went into its
 * channel (an orphan) and whether the run found it already there (held). A migration sends millions of
 * replies and keeps this table to the end of the run (and rebuilds it on resume), so it is a
 * StringKeyTable with the ids in a BigInt64Array and the two marks in a byte: about 30 bytes a reply plus
 * its key, where a Map of strings to objects took about 200 and stops at 2^24 entries.
 */
export class SentReplies {
  private readonly keys = new StringKeyTable('sent replies table');
  private ids = new BigInt64Array(0);
  private flags = new Uint8Array(0);
  /** Replies counted per flags value (a combination of ORPHAN, HELD and UPDATED). */
  private readonly perFlags = [0, 0, 0, 0, 0, 0, 0, 0];

  get size(): number {
    return this.keys.size;
  }

  /** How many went into their channel because their root has no thread. */
  get orphans(): number {
    return this.withFlags(ORPHAN, ORPHAN);
  }

  /** Of the replies in their threads / of the orphans: how many were already there (not sent by this run). */
  get held(): { replies: number; orphans: number } {
    return { replies: this.withFlags(ORPHAN | HELD, HELD), orphans: this.withFlags(ORPHAN | HELD, ORPHAN | HELD) };
  }

  /** How many were held with other content and patched (`mode: upsert`). */
  get updated(): number {
    return this.withFlags(UPDATED, UPDATED);
  }

  /** Replies whose flags, masked, equal `value`. */
  private withFlags(mask: number, value: number): number {
    let n = 0;
    for (let flags = 0; flags < this.perFlags.length; flags++) if ((flags & mask) === value) n += this.perFlags[flags]!;
    return n;
  }

  get(key: string): SentReply | undefined {
    const entry = this.keys.find(key);
    if (entry === -1) return undefined;
    const flags = this.flags[entry]!;
    return { id: int64(this.ids[entry]!), orphan: (flags & ORPHAN) !== 0, ...((flags & HELD) !== 0 ? { held: true as const } : {}), ...((flags & UPDATED) !== 0 ? { updated: true as const } : {}) };
  }

  set(key: string, sent: SentReply): void {
    const before = this.keys.size;
    const entry = this.keys.add(key);
    const isNew = this.keys.size > before;
    if (this.ids.length < this.keys.capacity) {
      this.ids = grownTo(this.ids, this.keys.capacity);
      this.flags = grownTo(this.flags, this.keys.capacity);
    }
    if (!isNew) this.perFlags[this.flags[entry]!]!--;
    this.ids[entry] = BigInt(sent.id);
    this.flags[entry] = (sent.orphan ? ORPHAN : 0) | (sent.held ? HELD : 0) | (sent.updated ? UPDATED : 0);
    this.perFlags[this.flags[entry]!]!++;
  }
}
