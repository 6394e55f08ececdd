import { chainEnds } from '../import/replies/chains.js';
import { hash64 } from './key-set.js';
import { grownTo } from '../../shared/typed-arrays.js';
import { Interner, TokenColumns, type Token } from './message-columns.js';

/**
 * The source's replies as columns, so that a ten-million-message migration's millions of replies fit: the
 * token, the thread root (interned: a thread's replies share it), the channel key (interned), a 64-bit
 * hash of the reply's key (matched against the keys the platform's thread holds) and the source ordinal,
 * by which a second read names a reply that differs. About 30 bytes a reply, where an object of strings
 * took about 300 (the 1M-message migration's verification peaked at 436 MB with them).
 */
export class ExpectedReplies extends TokenColumns {
  readonly parents = new Interner();
  readonly channels = new Interner();
  parent = new Uint32Array(16);
  channel = new Uint32Array(16);
  keyHi = new Uint32Array(16);
  keyLo = new Uint32Array(16);
  ordinal = new Uint32Array(16);
  /** A 32-bit hash of a Mattermost reply's slot (post-keys.ts postSlotOf), by which an edited one is found; 0 for none. */
  slot = new Uint32Array(16);
  /** 1: the reply has a copy of its own in its channel (refs.ts hasChannelCopy), which stands for it when its root is not on the platform. */
  copied = new Uint8Array(16);

  protected growExtra(size: number): void {
    this.parent = grownTo(this.parent, size);
    this.channel = grownTo(this.channel, size);
    this.keyHi = grownTo(this.keyHi, size);
    this.keyLo = grownTo(this.keyLo, size);
    this.ordinal = grownTo(this.ordinal, size);
    this.copied = grownTo(this.copied, size);
    this.slot = grownTo(this.slot, size);
  }

  push(reply: { parent: string; key: string; channelKey: string; token: Token; ordinal: number; copied?: boolean; slot?: string }): void {
    const i = this.pushToken(reply.token);
    this.parent[i] = this.parents.id(reply.parent);
    this.channel[i] = this.channels.id(reply.channelKey);
    [this.keyHi[i], this.keyLo[i]] = hash64(reply.key);
    this.ordinal[i] = reply.ordinal;
    this.copied[i] = reply.copied === true ? 1 : 0;
    this.slot[i] = reply.slot === undefined ? 0 : slotHash(reply.slot);
  }

  /** The reply's key hash, in the form keyHashText gives a key the platform holds. */
  keyHashOf(i: number): string {
    return `${this.keyHi[i]}:${this.keyLo[i]}`;
  }

  channelKeyOf(i: number): string {
    return this.channels.name(this.channel[i]!);
  }

  /**
   * Each reply's thread root (its interned parent id), through replies to replies of its channel: the
   * parent of the first reply of its chain (docs/threads.md "Replies to replies"). -1 for a reply on a ring
   * of replies, or hanging from one: the import finds no root for it, and it is an orphan on every run.
   */
  threadRoots(): Int32Array {
    // The reply whose key each parent ref is (-1: the parent is no reply).
    const parentIds = new Map<string, number>();
    for (let p = 0; p < this.parents.size; p++) parentIds.set(keyHashText(this.parents.name(p)), p);
    const replyOf = new Int32Array(this.parents.size).fill(-1);
    for (let i = 0; i < this.count; i++) {
      const p = parentIds.get(this.keyHashOf(i));
      if (p !== undefined) replyOf[p] = i;
    }
    const firstOf = chainEnds<number>((i) => {
      const k = replyOf[this.parent[i]!]!;
      return k >= 0 && this.channel[k] === this.channel[i] ? k : undefined;
    });
    const roots = new Int32Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const first = replyOf[this.parent[i]!]! < 0 ? i : firstOf(i);
      roots[i] = first === undefined ? -1 : this.parent[first]!;
    }
    return roots;
  }

  /**
   * The replies' indexes grouped by thread root and channel (in the order such pairs first appear), source
   * order within each: a root answers only its own channel's replies (roots.ts `rootKey`). `roots`: each
   * reply's root (parent id), -1 to leave it out.
   */
  byParent(roots: Int32Array = this.threadRoots()): Array<{ parent: string; channelKey: string; replies: Uint32Array }> {
    const groupOf = new Uint32Array(this.count);
    const ids = new Map<number, number>();
    const first: number[] = [];
    const outside = 0xffffffff;
    for (let i = 0; i < this.count; i++) {
      if (roots[i]! < 0) {
        groupOf[i] = outside;
        continue;
      }
      const pair = roots[i]! * this.channels.size + this.channel[i]!;
      let g = ids.get(pair);
      if (g === undefined) {
        ids.set(pair, (g = first.length));
        first.push(i);
      }
      groupOf[i] = g;
    }
    const counts = new Uint32Array(first.length + 1);
    for (let i = 0; i < this.count; i++) if (groupOf[i] !== outside) counts[groupOf[i]! + 1]!++;
    for (let g = 1; g <= first.length; g++) counts[g]! += counts[g - 1]!;
    const order = new Uint32Array(this.count);
    const next = counts.slice(0, first.length);
    for (let i = 0; i < this.count; i++) if (groupOf[i] !== outside) order[next[groupOf[i]!]!++] = i;
    return first.map((i, g) => ({ parent: this.parents.name(roots[i]!), channelKey: this.channelKeyOf(i), replies: order.subarray(counts[g]!, counts[g + 1]!) }));
  }
}

/** A slot's hash as ExpectedReplies.slot holds it (never 0). */
export function slotHash(slot: string): number {
  return hash64(slot)[1] || 1;
}

/** A key's 64-bit hash as text, to match against ExpectedReplies.keyHashOf. */
export function keyHashText(key: string): string {
  const [hi, lo] = hash64(key);
  return `${hi}:${lo}`;
}
