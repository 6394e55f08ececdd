/**
 * The sandbox's idempotency keys (one space across the application): key text → what it names. The keys
 * are a StringKeyTable (src/shared/string-key-table.ts: typed arrays, the keys' bytes outside the heap);
 * each entry's target is packed into 32 bits: about 60 bytes a key in all, where a Map of strings to
 * objects costs about 150 and stops at 2^24 entries, short of a 100M-message rehearsal.
 */
import { StringKeyTable } from '../shared/string-key-table.js';
import { grownTo } from '../shared/typed-arrays.js';
import type { KeyKind } from './store.js';

const KINDS: readonly KeyKind[] = ['user', 'channel', 'member', 'message'];
const KIND_NUMBER: Record<KeyKind, number> = { user: 0, channel: 1, member: 2, message: 3 };
/** Targets pack id × 4 + kind into 32 bits. */
const MOST_ID = 2 ** 30 - 1;

export interface KeyTarget {
  kind: KeyKind;
  id: number;
}

export class IdempotencyKeys {
  private readonly keys = new StringKeyTable('idempotency key table');
  private targets = new Uint32Array(0);

  get size(): number {
    return this.keys.size;
  }

  get(key: string): KeyTarget | undefined {
    const entry = this.keys.find(key);
    return entry === -1 ? undefined : unpack(this.targets[entry]!);
  }

  /**
   * Where the key whose UTF-8 is bytes[start, end) (keyHash() `hash`) is: its entry for targetAt(), or a
   * negative place for setLocatedUtf8() when it is absent (StringKeyTable.locateUtf8).
   */
  locateUtf8(bytes: Uint8Array, start: number, end: number, hash: number): number {
    return this.keys.locateUtf8(bytes, start, end, hash);
  }

  targetAt(entry: number): KeyTarget {
    return unpack(this.targets[entry]!);
  }

  /** The layout a place from locateUtf8() is good for (StringKeyTable.slotsLayout). */
  get layout(): number {
    return this.keys.slotsLayout;
  }

  set(key: string, target: KeyTarget): void {
    checkTarget(target);
    this.setEntry(this.keys.add(key), target);
  }

  /** set() of a key locateUtf8() placed at `located` under `layout` (no second probe while that slot is free). */
  setLocatedUtf8(bytes: Uint8Array, start: number, end: number, hash: number, located: number, layout: number, target: KeyTarget): void {
    checkTarget(target);
    this.setEntry(this.keys.addLocatedUtf8(bytes, start, end, hash, located, layout), target);
  }

  private setEntry(entry: number, target: KeyTarget): void {
    if (this.targets.length < this.keys.capacity) this.targets = grownTo(this.targets, this.keys.capacity);
    this.targets[entry] = target.id * 4 + KIND_NUMBER[target.kind];
  }

  /** Every key and its target, in the order first set. */
  *entries(): Generator<[string, KeyTarget]> {
    for (let entry = 0; entry < this.keys.size; entry++) yield [this.keys.keyAt(entry), unpack(this.targets[entry]!)];
  }
}

/** Before the key is added: a target the table cannot hold must leave no key behind. */
function checkTarget(target: KeyTarget): void {
  if (!Number.isInteger(target.id) || target.id < 0 || target.id > MOST_ID) throw new RangeError(`id ${target.id} is outside the key table's range`);
}

function unpack(packed: number): KeyTarget {
  return { kind: KINDS[packed % 4]!, id: Math.floor(packed / 4) };
}
