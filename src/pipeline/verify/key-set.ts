import { parseInt64 } from '../../shared/int64.js';
import { grownTo } from '../../shared/typed-arrays.js';

/**
 * A set of strings kept as 64-bit hashes in one typed array (8 bytes a key instead of a string each), to
 * tell a source key seen again in a stage of millions of records. Two keys sharing a 64-bit hash are
 * taken for one; at ten million keys the chance of that is about 3 in a million.
 */
export class KeyHashSet {
  private table = new Uint32Array(2 * 1024);
  private used = 0;

  /** Adds the key; false when it (or its hash) was there already. */
  add(key: string): boolean {
    if ((this.used + 1) * 4 > (this.table.length / 2) * 3) this.grow();
    const [hi, lo] = hash64(key);
    return this.insert(hi, lo);
  }

  get size(): number {
    return this.used;
  }

  /** Whether the key (or its hash) was added. */
  has(key: string): boolean {
    const [hi, low] = hash64(key);
    const lo = hi === 0 && low === 0 ? 1 : low;
    const slots = this.table.length / 2;
    for (let slot = (lo ^ hi) & (slots - 1); ; slot = (slot + 1) & (slots - 1)) {
      const h = this.table[slot * 2]!;
      const l = this.table[slot * 2 + 1]!;
      if (h === 0 && l === 0) return false;
      if (h === hi && l === lo) return true;
    }
  }

  private insert(hi: number, lo: number): boolean {
    // (0, 0) marks an empty slot; a key hashing there is moved to (0, 1).
    if (hi === 0 && lo === 0) lo = 1;
    const slots = this.table.length / 2;
    let slot = (lo ^ hi) & (slots - 1);
    for (;;) {
      const h = this.table[slot * 2]!;
      const l = this.table[slot * 2 + 1]!;
      if (h === 0 && l === 0) {
        this.table[slot * 2] = hi;
        this.table[slot * 2 + 1] = lo;
        this.used++;
        return true;
      }
      if (h === hi && l === lo) return false;
      slot = (slot + 1) & (slots - 1);
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    this.used = 0;
    for (let s = 0; s < old.length; s += 2) if (old[s] !== 0 || old[s + 1] !== 0) this.insert(old[s]!, old[s + 1]!);
  }
}

/** Two 32-bit FNV-1a hashes with different offsets, over UTF-16 code units. */
export function hash64(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return [a >>> 0, b >>> 0];
}

/**
 * Platform message ids (int64 as decimal text), kept exactly as 8 bytes each and found by binary search;
 * an id in any other form is kept as text. Equal means the same text, as with a Set of strings.
 */
export class MessageIdSet {
  private ids = new BigInt64Array(16);
  private count = 0;
  private sorted = true;
  private readonly other = new Set<string>();

  add(id: string): void {
    const value = int64Of(id);
    if (value === undefined) {
      this.other.add(id);
      return;
    }
    if (this.count === this.ids.length) this.ids = grownTo(this.ids, this.ids.length * 2);
    if (this.count > 0 && this.ids[this.count - 1]! >= value) this.sorted = false;
    this.ids[this.count++] = value;
  }

  has(id: string): boolean {
    const value = int64Of(id);
    if (value === undefined) return this.other.has(id);
    if (!this.sorted) {
      this.ids = this.ids.slice(0, this.count).sort();
      this.sorted = true;
    }
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.count && this.ids[lo] === value;
  }

  get size(): number {
    return this.count + this.other.size;
  }
}

/** The id as an int64 when it is one written the canonical way (no leading zeros; "-0" is text). */
function int64Of(id: string): bigint | undefined {
  const value = id === '-0' ? undefined : parseInt64(id);
  return value === undefined ? undefined : BigInt(value);
}
