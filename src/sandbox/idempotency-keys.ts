/**
 * The sandbox's idempotency keys (one space across the application): key text → what it names. An
 * open-addressing hash table over typed arrays, the keys' UTF-8 bytes in 16 MiB buffers outside the
 * JavaScript heap: about 55 bytes a key (a Map of strings to objects costs about 150, and stops at 2^24
 * entries, short of a 100M-message rehearsal).
 */
import type { KeyKind } from './store.js';

const KINDS: readonly KeyKind[] = ['user', 'channel', 'member', 'message'];
const KIND_NUMBER: Record<KeyKind, number> = { user: 0, channel: 1, member: 2, message: 3 };
const CHUNK_BYTES = 16 * 2 ** 20;
/** Key bytes are addressed by a 32-bit place: up to 4 GiB of keys (about 100M keys of chatport's 36 bytes). */
const MOST_KEY_BYTES = 2 ** 32;
/** Targets pack id × 4 + kind into 32 bits. */
const MOST_ID = 2 ** 30 - 1;
const EMPTY = 0;

export interface KeyTarget {
  kind: KeyKind;
  id: number;
}

export class IdempotencyKeys {
  /** Slot → entry number + 1 (0: empty). Its length is a power of two, at most 70% full. */
  private slots: Uint32Array = new Uint32Array(1 << 16);
  private hashes: Uint32Array = new Uint32Array(1 << 15);
  /** Entry → where its key's bytes are (chunk × CHUNK_BYTES + offset), their length, its target. */
  private places: Uint32Array = new Uint32Array(1 << 15);
  private lengths: Uint16Array = new Uint16Array(1 << 15);
  private targets: Uint32Array = new Uint32Array(1 << 15);
  private count = 0;
  private readonly chunks: Buffer[] = [];
  private chunk = Buffer.allocUnsafeSlow(0);
  private used = 0;
  /** The looked-up key's UTF-8 bytes (grown for a long key). */
  private scratch = Buffer.allocUnsafeSlow(1024);

  get size(): number {
    return this.count;
  }

  get(key: string): KeyTarget | undefined {
    const length = this.encode(key);
    const hash = this.hashScratch(length);
    const entry = this.find(hash, length);
    return entry === -1 ? undefined : unpack(this.targets[entry]!);
  }

  set(key: string, target: KeyTarget): void {
    const length = this.encode(key);
    const hash = this.hashScratch(length);
    if (!Number.isInteger(target.id) || target.id < 0 || target.id > MOST_ID) throw new RangeError(`id ${target.id} is outside the key table's range`);
    const packed = target.id * 4 + KIND_NUMBER[target.kind];
    const found = this.find(hash, length);
    if (found !== -1) {
      this.targets[found] = packed;
      return;
    }
    if ((this.count + 1) * 10 > this.slots.length * 7) this.growSlots();
    if (this.count === this.places.length) this.growEntries();
    const entry = this.count++;
    this.hashes[entry] = hash;
    this.places[entry] = this.storeScratch(length);
    this.lengths[entry] = length;
    this.targets[entry] = packed;
    this.placeInSlots(entry, hash);
  }

  /** Every key and its target, in the order first set. */
  *entries(): Generator<[string, KeyTarget]> {
    for (let entry = 0; entry < this.count; entry++) {
      const chunk = this.chunks[Math.floor(this.places[entry]! / CHUNK_BYTES)]!;
      const offset = this.places[entry]! % CHUNK_BYTES;
      yield [chunk.toString('utf8', offset, offset + this.lengths[entry]!), unpack(this.targets[entry]!)];
    }
  }

  private encode(key: string): number {
    if (key.length * 3 > this.scratch.length) this.scratch = Buffer.allocUnsafeSlow(key.length * 3);
    const length = this.scratch.write(key, 0, 'utf8');
    // Keys are at most 256 characters on the wire (LIMITS.idempotencyKeyLength); lengths are kept in 16 bits.
    if (length > 0xffff) throw new RangeError(`an idempotency key of ${length} bytes is longer than the key table holds`);
    return length;
  }

  /** FNV-1a over the scratch bytes. */
  private hashScratch(length: number): number {
    let h = 0x811c9dc5;
    const bytes = this.scratch;
    for (let i = 0; i < length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
    return h >>> 0;
  }

  private find(hash: number, length: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot]!;
      if (held === EMPTY) return -1;
      const entry = held - 1;
      if (this.hashes[entry] === hash && this.lengths[entry] === length && this.sameBytes(entry, length)) return entry;
    }
  }

  private sameBytes(entry: number, length: number): boolean {
    const chunk = this.chunks[Math.floor(this.places[entry]! / CHUNK_BYTES)]!;
    const offset = this.places[entry]! % CHUNK_BYTES;
    return this.scratch.compare(chunk, offset, offset + length, 0, length) === 0;
  }

  private storeScratch(length: number): number {
    if (this.used + length > this.chunk.length) {
      if ((this.chunks.length + 1) * CHUNK_BYTES > MOST_KEY_BYTES) throw new RangeError('more idempotency key bytes than the key table holds (4 GiB)');
      this.chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
      this.chunks.push(this.chunk);
      this.used = 0;
    }
    this.scratch.copy(this.chunk, this.used, 0, length);
    const place = (this.chunks.length - 1) * CHUNK_BYTES + this.used;
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
    this.hashes = grown(this.hashes, new Uint32Array(length));
    this.places = grown(this.places, new Uint32Array(length));
    this.lengths = grown(this.lengths, new Uint16Array(length));
    this.targets = grown(this.targets, new Uint32Array(length));
  }
}

function grown<T extends Uint32Array | Uint16Array>(old: T, next: T): T {
  next.set(old);
  return next;
}

function unpack(packed: number): KeyTarget {
  return { kind: KINDS[packed % 4]!, id: Math.floor(packed / 4) };
}
