import { reason } from './types.js';
import type { Reason } from './types.js';
import type { Int64 } from '../shared/int64.js';
import { stringifyJson } from '../shared/lossless-json.js';
import { ItemEncoder } from './item-bytes.js';

export interface ChunkerOptions {
  /** Most items in one chunk. */
  maxRecords: number;
  /** Most bytes in one chunk file (the whole JSON array, brackets and commas included). */
  maxBytes: number;
  /**
   * With groups (members: one chunk per channel), how many groups may have an open chunk at once; opening
   * one more first closes the chunk of the group opened longest ago. Bounds memory on inputs that
   * interleave many channels. Default 1000.
   */
  maxOpenGroups?: number;
  /**
   * With groups, the most bytes all open chunks may hold together; past it, chunks are closed oldest group
   * first (they are then smaller than maxBytes). Bounds memory whatever the input's order. Default 32 MiB.
   */
  maxOpenBytes?: number;
}

/** A finished chunk: the exact bytes of a JSON array file, and who is in it. */
export interface Chunk<M> {
  /** 0-based number of the chunk in this chunker's output, in the order chunks were finished. */
  seq: number;
  /** The group the chunk belongs to (members: the channel id); undefined without groups. */
  group: Int64 | string | undefined;
  /** Number of items. */
  records: number;
  /** `[item,item,…]`, UTF-8, no whitespace, items in the order they were added. */
  bytes: Buffer;
  /** The metadata passed with each item, in the same order. */
  metas: M[];
}

/** An item that alone is larger than a chunk may be; it is rejected, never sent, never split. */
export interface OversizeItem {
  kind: 'oversize';
  reason: Reason;
}

interface OpenChunk<M> {
  group: Int64 | string | undefined;
  /** `[item,item,…` so far (no closing bracket); capacity grows as needed. */
  buffer: Buffer;
  /** Bytes used in `buffer`. */
  used: number;
  records: number;
  metas: M[];
}

const NONE: never[] = [];

/** `done` plus one chunk; a new array, since `done` may be the shared empty NONE. */
function withChunk<M>(done: Chunk<M>[], chunk: Chunk<M>): Chunk<M>[] {
  return done === NONE ? [chunk] : [...done, chunk];
}

/** First capacity of an open chunk's buffer; it doubles as items come, up to what maxBytes needs. */
const INITIAL_CAPACITY = 64 * 1024;

/**
 * Buffers of released chunks kept for the next open chunks (each is up to maxBytes): enough for the
 * chunks an import keeps in flight (2 × concurrency) and those open, so a steady import allocates none.
 */
const SPARE_BUFFERS = 16;

/**
 * Groups items into JSON array chunks bounded by records AND bytes. Deterministic: the same items, groups
 * and options always give byte-identical chunks in the same order (nothing depends on time or on how the
 * input was read). Each item is serialized exactly once, with JSON.stringify (int64 ids beyond 2^53, as
 * bigints, as their exact digits: stringifyJson), encoded to UTF-8 once (ItemEncoder) and copied into
 * its open chunk's buffer: open chunks live outside the JavaScript heap, so the garbage collector never
 * copies them from young to old space (as strings, that copying cost more CPU than the serializing).
 *
 * A chunk is finished as soon as it is full (records) or the next item would not fit (bytes). An item
 * whose array alone (`[item]`) exceeds `maxBytes` cannot be sent in any chunk: `add` returns it as an
 * OversizeItem for the caller to reject.
 */
export class Chunker<M> {
  private readonly maxRecords: number;
  private readonly maxBytes: number;
  private readonly maxOpenGroups: number;
  private readonly maxOpenBytes: number;
  private openBytes = 0;
  private readonly open = new Map<Int64 | string | undefined, OpenChunk<M>>();
  private readonly spare: Buffer[] = [];
  private readonly encoder = new ItemEncoder();
  /** Each finished chunk's buffer (its bytes are a view of it), until the chunk is released. */
  private readonly backing = new WeakMap<Chunk<M>, Buffer>();
  private seq = 0;

  constructor(options: ChunkerOptions) {
    if (!(options.maxRecords >= 1) || !(options.maxBytes >= 3)) throw new RangeError('chunks need maxRecords >= 1 and maxBytes >= 3');
    this.maxRecords = options.maxRecords;
    this.maxBytes = options.maxBytes;
    this.maxOpenGroups = options.maxOpenGroups ?? 1000;
    this.maxOpenBytes = options.maxOpenBytes ?? 32 * 1024 * 1024;
  }

  /**
   * Adds one item. Returns the chunks this finished (usually none: a shared empty array), or an
   * OversizeItem when the item can never fit.
   */
  add(item: unknown, meta: M, group?: Int64 | string): Chunk<M>[] | OversizeItem {
    return this.addJson(stringifyJson(item), meta, group);
  }

  /** `add` for an item the caller already serialized (with stringifyJson). */
  addJson(json: string, meta: M, group?: Int64 | string): Chunk<M>[] | OversizeItem {
    return this.addBytes(this.encoder.encode(json), meta, group);
  }

  /**
   * `add` for an item the caller already serialized and encoded (the UTF-8 of stringifyJson, e.g. to
   * fingerprint it): the bytes are copied, so the caller may reuse their buffer.
   */
  addBytes(bytes: Uint8Array, meta: M, group?: Int64 | string): Chunk<M>[] | OversizeItem {
    const size = bytes.length;
    if (size + 2 > this.maxBytes) return { kind: 'oversize', reason: reason('', `an item of at most ${this.maxBytes - 2} bytes as JSON (chunkBytes ${this.maxBytes})`, `${size} bytes`) };
    let done: Chunk<M>[] = NONE;
    let chunk = this.open.get(group);
    if (chunk !== undefined && !this.fits(chunk, size)) {
      // Does not fit: the chunk is finished without it, and the item starts the group's next chunk.
      done = [this.close(chunk)];
      chunk = undefined;
    }
    if (chunk === undefined) {
      if (this.open.size >= this.maxOpenGroups) done = withChunk(done, this.close(this.open.values().next().value as OpenChunk<M>));
      chunk = this.newChunk(group);
      this.open.set(group, chunk);
    }
    // Room for the separator, the item and the closing bracket (`fits` showed it is within maxBytes).
    const at = chunk.used + 1;
    const room = at + size + 1;
    if (chunk.buffer.length < room) chunk.buffer = grow(chunk.buffer, chunk.used, room, this.maxBytes);
    chunk.buffer.set(bytes, at);
    chunk.buffer[chunk.used] = chunk.records === 0 ? 0x5b : 0x2c; // '[' or ','
    chunk.used += 1 + size;
    this.openBytes += chunk.records === 0 ? size : size + 1;
    chunk.records++;
    chunk.metas.push(meta);
    if (chunk.records >= this.maxRecords) done = withChunk(done, this.close(chunk));
    while (this.openBytes > this.maxOpenBytes && this.open.size > 0) {
      const oldest = this.open.values().next().value as OpenChunk<M>;
      done = withChunk(done, this.close(oldest));
    }
    return done;
  }

  /**
   * The chunk has been sent (or is no longer needed): its buffer serves a later chunk. Optional (an
   * unreleased chunk's buffer is garbage collected), but reusing buffers keeps the allocator from holding
   * freed ones: copies per chunk were most of an import's memory beyond its heap.
   */
  release(chunk: Chunk<M>): void {
    const buffer = this.backing.get(chunk);
    if (buffer === undefined) return;
    this.backing.delete(chunk);
    this.recycle(buffer);
  }

  /** Whether the item goes into `chunk` without passing maxBytes (its separator and the closing bracket included). */
  private fits(chunk: OpenChunk<M>, size: number): boolean {
    return size <= this.maxBytes - chunk.used - 2;
  }

  /** Finishes every open chunk, in the order their groups were opened. */
  finish(): Chunk<M>[] {
    return [...this.open.values()].map((chunk) => this.close(chunk));
  }

  private newChunk(group: Int64 | string | undefined): OpenChunk<M> {
    const buffer = this.spare.pop() ?? Buffer.allocUnsafe(Math.min(INITIAL_CAPACITY, this.maxBytes));
    return { group, buffer, used: 0, records: 0, metas: [] };
  }

  private recycle(buffer: Buffer): void {
    if (this.spare.length < SPARE_BUFFERS) this.spare.push(buffer);
  }

  private close(chunk: OpenChunk<M>): Chunk<M> {
    this.open.delete(chunk.group);
    this.openBytes -= chunk.used - 1;
    // `fits` and addJson's room leave a byte for the bracket.
    chunk.buffer[chunk.used] = 0x5d; // ']'
    const done: Chunk<M> = { seq: this.seq++, group: chunk.group, records: chunk.records, bytes: chunk.buffer.subarray(0, chunk.used + 1), metas: chunk.metas };
    this.backing.set(done, chunk.buffer);
    return done;
  }
}

/**
 * A buffer of at least `needed` bytes (doubling, by a quarter past 1 MiB, at most `cap`) holding the first
 * `used` bytes of `buffer`. Buffers are reused from chunk to chunk, so their spare room is memory held for
 * good: a quarter at most, not half.
 */
function grow(buffer: Buffer, used: number, needed: number, cap: number): Buffer {
  let capacity = Math.max(buffer.length, 1024);
  while (capacity < needed) capacity = capacity < 1 << 20 ? capacity * 2 : capacity + (capacity >>> 2);
  const bigger = Buffer.allocUnsafe(Math.max(needed, Math.min(capacity, cap)));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

export function isOversize<M>(result: Chunk<M>[] | OversizeItem): result is OversizeItem {
  return !Array.isArray(result);
}
