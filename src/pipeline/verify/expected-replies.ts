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

  protected growExtra(size: number): void {
    this.parent = grownTo(this.parent, size);
    this.channel = grownTo(this.channel, size);
    this.keyHi = grownTo(this.keyHi, size);
    this.keyLo = grownTo(this.keyLo, size);
    this.ordinal = grownTo(this.ordinal, size);
  }

  push(reply: { parent: string; key: string; channelKey: string; token: Token; ordinal: number }): void {
    const i = this.pushToken(reply.token);
    this.parent[i] = this.parents.id(reply.parent);
    this.channel[i] = this.channels.id(reply.channelKey);
    [this.keyHi[i], this.keyLo[i]] = hash64(reply.key);
    this.ordinal[i] = reply.ordinal;
  }

  /** The reply's key hash, in the form keyHashText gives a key the platform holds. */
  keyHashOf(i: number): string {
    return `${this.keyHi[i]}:${this.keyLo[i]}`;
  }

  parentOf(i: number): string {
    return this.parents.name(this.parent[i]!);
  }

  channelKeyOf(i: number): string {
    return this.channels.name(this.channel[i]!);
  }

  /** The replies' indexes grouped by thread root (in the order roots first appear), source order within each. */
  byParent(): Array<{ parent: string; replies: Uint32Array }> {
    const roots = this.parents.size;
    const counts = new Uint32Array(roots + 1);
    for (let i = 0; i < this.count; i++) counts[this.parent[i]! + 1]!++;
    for (let p = 1; p <= roots; p++) counts[p]! += counts[p - 1]!;
    const order = new Uint32Array(this.count);
    const next = counts.slice(0, roots);
    for (let i = 0; i < this.count; i++) order[next[this.parent[i]!]!++] = i;
    const groups: Array<{ parent: string; replies: Uint32Array }> = [];
    for (let p = 0; p < roots; p++) if (counts[p + 1]! > counts[p]!) groups.push({ parent: this.parents.name(p), replies: order.subarray(counts[p]!, counts[p + 1]!) });
    return groups;
  }
}

/** A key's 64-bit hash as text, to match against ExpectedReplies.keyHashOf. */
export function keyHashText(key: string): string {
  const [hi, lo] = hash64(key);
  return `${hi}:${lo}`;
}
