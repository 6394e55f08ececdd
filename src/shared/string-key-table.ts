/**
 * Exact string keys → entry numbers (0, 1, 2… in the order added), for tables of millions of keys: an
 * open-addressing hash table over typed arrays, the keys' UTF-8 bytes in 16 MiB buffers outside the
 * JavaScript heap. About 25 bytes a key plus its bytes, where a Map of strings costs about 100 and stops
 * at V8's limit of 2^24 entries. Callers keep what each key names in their own typed arrays, by entry.
 * Used by the sandbox's idempotency keys and by the client's record of sent replies.
 */
import { ByteCopier } from './byte-copy.js';
import { grownTo } from './typed-arrays.js';

const CHUNK_BYTES = 16 * 2 ** 20;
/** Key bytes are addressed by a 32-bit place: up to 4 GiB of keys. */
const MOST_KEY_BYTES = 2 ** 32;
const EMPTY = 0;

export class StringKeyTable {
  /**
   * Slot pairs: [2s] the entry number + 1 (0: empty), [2s + 1] that entry's key hash, side by side so a
   * probe reads one place in memory (a table of millions misses the cache on each place it reads). The
   * slot count is a power of two, the table at most 70% full.
   */
  private slots: Uint32Array = new Uint32Array(2 << 10);
  private slotMask = (1 << 10) - 1;
  /** Bumped each time the slots are rebuilt: a free slot found before says nothing after. */
  private layout = 0;
  /** Entry → where its key's bytes are (chunk × CHUNK_BYTES + offset) and their length. */
  private places: Uint32Array = new Uint32Array(1 << 9);
  private lengths: Uint16Array = new Uint16Array(1 << 9);
  private count = 0;
  private readonly chunks: Buffer[] = [];
  private chunk = Buffer.allocUnsafeSlow(0);
  private used = 0;
  private readonly copier = new ByteCopier();
  /** The looked-up key's UTF-8 bytes (grown for a long key). */
  private scratch = Buffer.allocUnsafeSlow(1024);

  constructor(private readonly name = 'key table') {}

  get size(): number {
    return this.count;
  }

  /** How many entries the per-entry arrays must hold now (callers grow theirs to match). */
  get capacity(): number {
    return this.places.length;
  }

  /** The slots' layout now, for addLocatedUtf8. */
  get slotsLayout(): number {
    return this.layout;
  }

  /** The key's entry, or -1. */
  find(key: string): number {
    const length = this.encode(key); // first: it may replace the scratch buffer
    return this.findUtf8(this.scratch, 0, length);
  }

  /** The key's entry, added when new (then `size - 1`). */
  add(key: string): number {
    const length = this.encode(key);
    return this.addUtf8(this.scratch, 0, length);
  }

  /**
   * find() of the key whose UTF-8 is bytes[start, end) (an upload's, say: no text made or encoded);
   * `hash` is its keyHash() when the caller has it already.
   */
  findUtf8(bytes: Uint8Array, start: number, end: number, hash = keyHash(bytes, start, end)): number {
    const located = this.locateUtf8(bytes, start, end, hash);
    return located < 0 ? -1 : located;
  }

  /**
   * The key's entry (≥ 0) or, when it is absent, -1 - the free slot where adding it would put it. That
   * slot stays its place while it is free and slotsLayout is unchanged: slots are only ever filled, so
   * each slot before it on the key's probe path is still taken (addLocatedUtf8 relies on this).
   */
  locateUtf8(bytes: Uint8Array, start: number, end: number, hash: number): number {
    const length = end - start;
    const mask = this.slotMask;
    const slots = this.slots;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = slots[2 * slot]!;
      if (held === EMPTY) return -1 - slot;
      const entry = held - 1;
      if (slots[2 * slot + 1] === hash && this.lengths[entry] === length && this.sameBytes(entry, bytes, start, length)) return entry;
    }
  }

  /** add() of the key whose UTF-8 is bytes[start, end) (and whose keyHash() is `hash`). */
  addUtf8(bytes: Uint8Array, start: number, end: number, hash = keyHash(bytes, start, end)): number {
    checkLength(end - start, this.name);
    const located = this.locateUtf8(bytes, start, end, hash);
    if (located >= 0) return located;
    if (this.growIfFull()) return this.addAt(bytes, start, end, hash, this.freeSlot(hash));
    return this.addAt(bytes, start, end, hash, -1 - located);
  }

  /**
   * addUtf8() of a key that locateUtf8() found absent (`located`, under slotsLayout `layout`): placed
   * without a second probe while that slot is still free in the same layout, else as addUtf8() places it.
   */
  addLocatedUtf8(bytes: Uint8Array, start: number, end: number, hash: number, located: number, layout: number): number {
    const slot = -1 - located;
    if (located >= 0 || layout !== this.layout || this.slots[2 * slot] !== EMPTY || this.growIfFull()) return this.addUtf8(bytes, start, end, hash);
    checkLength(end - start, this.name);
    return this.addAt(bytes, start, end, hash, slot);
  }

  keyAt(entry: number): string {
    const chunk = this.chunks[Math.floor(this.places[entry]! / CHUNK_BYTES)]!;
    const offset = this.places[entry]! % CHUNK_BYTES;
    return chunk.toString('utf8', offset, offset + this.lengths[entry]!);
  }

  private encode(key: string): number {
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafeSlow(key.length * 3);
    const length = this.scratch.write(key, 0, 'utf8');
    checkLength(length, this.name);
    return length;
  }

  /** Grows the slots when one more entry would fill them past 70%; true when it did (a new layout). */
  private growIfFull(): boolean {
    if ((this.count + 1) * 10 <= (this.slotMask + 1) * 7) return false;
    this.growSlots();
    return true;
  }

  private addAt(bytes: Uint8Array, start: number, end: number, hash: number, slot: number): number {
    if (this.count === this.places.length) this.growEntries();
    const length = end - start;
    const entry = this.count++;
    this.places[entry] = this.storeBytes(bytes, start, length);
    this.lengths[entry] = length;
    this.slots[2 * slot] = entry + 1;
    this.slots[2 * slot + 1] = hash;
    return entry;
  }

  /** Compared byte by byte: keys are short, and Buffer.compare's own cost is larger. */
  private sameBytes(entry: number, bytes: Uint8Array, start: number, length: number): boolean {
    const chunk = this.chunks[Math.floor(this.places[entry]! / CHUNK_BYTES)]!;
    const offset = this.places[entry]! % CHUNK_BYTES;
    for (let i = 0; i < length; i++) if (chunk[offset + i] !== bytes[start + i]) return false;
    return true;
  }

  private storeBytes(bytes: Uint8Array, start: number, length: number): number {
    if (this.used + length > this.chunk.length) {
      if ((this.chunks.length + 1) * CHUNK_BYTES > MOST_KEY_BYTES) throw new RangeError(`more key bytes than the ${this.name} holds (4 GiB)`);
      // The first buffer is small: most tables (a run's replies, a small rehearsal) hold few keys.
      this.chunk = Buffer.allocUnsafeSlow(this.chunks.length === 0 ? Math.max(64 * 1024, length) : CHUNK_BYTES);
      this.chunks.push(this.chunk);
      this.used = 0;
    }
    const at = this.used;
    this.copier.copy(bytes, start, start + length, this.chunk, at);
    const place = (this.chunks.length - 1) * CHUNK_BYTES + at;
    this.used += length;
    return place;
  }

  /** The first free slot on the probe path of `hash`. */
  private freeSlot(hash: number): number {
    const mask = this.slotMask;
    let slot = hash & mask;
    while (this.slots[2 * slot] !== EMPTY) slot = (slot + 1) & mask;
    return slot;
  }

  private growSlots(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    this.slotMask = old.length - 1;
    this.layout++;
    for (let s = 0; s < old.length; s += 2) {
      if (old[s] === EMPTY) continue;
      const slot = this.freeSlot(old[s + 1]!);
      this.slots[2 * slot] = old[s]!;
      this.slots[2 * slot + 1] = old[s + 1]!;
    }
  }

  private growEntries(): void {
    const length = Math.ceil(this.places.length * 1.5);
    this.places = grownTo(this.places, length);
    this.lengths = grownTo(this.lengths, length);
  }
}

function checkLength(length: number, name: string): void {
  if (length > 0xffff) throw new RangeError(`a key of ${length} bytes is longer than the ${name} holds (65,535)`);
}

/**
 * The table's hash of a key's UTF-8 bytes[start, end): FNV-1a, cut to 30 bits so that it is a small
 * integer V8 keeps unboxed, in a record's field or a Map's key.
 */
export function keyHash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h & 0x3fffffff;
}
