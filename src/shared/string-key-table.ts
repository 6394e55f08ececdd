/**
 * Exact string keys → entry numbers (0, 1, 2… in the order added), for tables of millions of keys: an
 * open-addressing hash table over typed arrays, the keys' UTF-8 bytes in 16 MiB buffers outside the
 * JavaScript heap. About 20 bytes a key plus its bytes, where a Map of strings costs about 100 and stops
 * at V8's limit of 2^24 entries. Callers keep what each key names in their own typed arrays, by entry.
 * Used by the sandbox's idempotency keys and by the client's record of sent replies.
 */
import { grownTo } from './typed-arrays.js';

const CHUNK_BYTES = 16 * 2 ** 20;
/** Key bytes are addressed by a 32-bit place: up to 4 GiB of keys. */
const MOST_KEY_BYTES = 2 ** 32;
const EMPTY = 0;

export class StringKeyTable {
  /** Slot → entry number + 1 (0: empty). Its length is a power of two, at most 70% full. */
  private slots: Uint32Array = new Uint32Array(1 << 10);
  private hashes: Uint32Array = new Uint32Array(1 << 9);
  /** Entry → where its key's bytes are (chunk × CHUNK_BYTES + offset) and their length. */
  private places: Uint32Array = new Uint32Array(1 << 9);
  private lengths: Uint16Array = new Uint16Array(1 << 9);
  private count = 0;
  private readonly chunks: Buffer[] = [];
  private chunk = Buffer.allocUnsafeSlow(0);
  private used = 0;
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
    return this.findBytes(bytes, start, end - start, hash);
  }

  /** add() of the key whose UTF-8 is bytes[start, end) (and whose keyHash() is `hash`). */
  addUtf8(bytes: Uint8Array, start: number, end: number, hash = keyHash(bytes, start, end)): number {
    const length = end - start;
    if (length > 0xffff) throw new RangeError(`a key of ${length} bytes is longer than the ${this.name} holds (65,535)`);
    const found = this.findBytes(bytes, start, length, hash);
    if (found !== -1) return found;
    if ((this.count + 1) * 10 > this.slots.length * 7) this.growSlots();
    if (this.count === this.places.length) this.growEntries();
    const entry = this.count++;
    this.hashes[entry] = hash;
    this.places[entry] = this.storeBytes(bytes, start, length);
    this.lengths[entry] = length;
    this.placeInSlots(entry, hash);
    return entry;
  }

  keyAt(entry: number): string {
    const chunk = this.chunks[Math.floor(this.places[entry]! / CHUNK_BYTES)]!;
    const offset = this.places[entry]! % CHUNK_BYTES;
    return chunk.toString('utf8', offset, offset + this.lengths[entry]!);
  }

  private encode(key: string): number {
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafeSlow(key.length * 3);
    const length = this.scratch.write(key, 0, 'utf8');
    if (length > 0xffff) throw new RangeError(`a key of ${length} bytes is longer than the ${this.name} holds (65,535)`);
    return length;
  }

  private findBytes(bytes: Uint8Array, start: number, length: number, hash: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === EMPTY) return -1;
      const entry = held - 1;
      if (this.hashes[entry] === hash && this.lengths[entry] === length && this.sameBytes(entry, bytes, start, length)) return entry;
    }
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
    const chunk = this.chunk;
    const at = this.used;
    for (let i = 0; i < length; i++) chunk[at + i] = bytes[start + i]!;
    const place = (this.chunks.length - 1) * CHUNK_BYTES + at;
    this.used += length;
    return place;
  }

  private placeInSlots(entry: number, hash: number): void {
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    while (this.slots[slot] !== EMPTY) slot = (slot + 1) & mask;
    this.slots[slot] = entry + 1;
  }

  private growSlots(): void {
    this.slots = new Uint32Array(this.slots.length * 2);
    for (let entry = 0; entry < this.count; entry++) this.placeInSlots(entry, this.hashes[entry]!);
  }

  private growEntries(): void {
    const length = Math.ceil(this.places.length * 1.5);
    this.hashes = grownTo(this.hashes, length);
    this.places = grownTo(this.places, length);
    this.lengths = grownTo(this.lengths, length);
  }
}

/** The table's hash of a key's UTF-8 bytes[start, end): FNV-1a. */
export function keyHash(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}
