import { reason } from './types.js';
import type { Reason } from './types.js';
import type { Int64 } from '../shared/int64.js';
import { stringifyJson } from '../shared/lossless-json.js';

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

/** Buffers of closed chunks kept for the next open chunks (each is up to maxBytes). */
const SPARE_BUFFERS = 4;

/**
 * Groups items into JSON array chunks bounded by records AND bytes. Deterministic: the same items, groups
 * and options always give byte-identical chunks in the same order (nothing depends on time or on how the
 * input was read). Each item is serialized exactly once, with JSON.stringify (int64 ids beyond 2^53, as
 * bigints, as their exact digits: stringifyJson), and encoded straight into
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

  /** `add` for an item the caller already serialized (with stringifyJson), e.g. to fingerprint it. */
  addJson(json: string, meta: M, group?: Int64 | string): Chunk<M>[] | OversizeItem {
    const existing = this.open.get(group);
    let chunk = existing ?? this.newChunk(group);
    // Encoded in place after the separator's byte; UTF-8 takes at most 3 bytes per UTF-16 unit.
    const at = chunk.used + 1;
    const needed = at + json.length * 3;
    if (chunk.buffer.length < needed) chunk.buffer = grow(chunk.buffer, chunk.used, needed);
    const size = chunk.buffer.write(json, at);
    if (size + 2 > this.maxBytes) {
      if (existing === undefined) this.recycle(chunk.buffer);
      return { kind: 'oversize', reason: reason('', `an item of at most ${this.maxBytes - 2} bytes as JSON (chunkBytes ${this.maxBytes})`, `${size} bytes`) };
    }
    let done: Chunk<M>[] = NONE;
    if (existing === undefined) {
      if (this.open.size >= this.maxOpenGroups) done = [this.close(this.open.values().next().value as OpenChunk<M>)];
      this.open.set(group, chunk);
    } else if (chunk.used + 1 + size + 1 > this.maxBytes) {
      // Does not fit: the chunk is finished without it, and the item starts the group's next chunk.
      const next = this.newChunk(group);
      if (next.buffer.length < size + 2) next.buffer = grow(next.buffer, 0, size + 2);
      chunk.buffer.copy(next.buffer, 1, at, at + size);
      next.used = 0;
      done = [this.close(chunk)];
      this.open.set(group, next);
      chunk = next;
    }
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
    // The exact bytes are copied out so that the (larger) buffer can serve the next open chunk.
    const bytes = Buffer.allocUnsafe(chunk.used + 1);
    chunk.buffer.copy(bytes, 0, 0, chunk.used);
    bytes[chunk.used] = 0x5d; // ']'
    this.recycle(chunk.buffer);
    return { seq: this.seq++, group: chunk.group, records: chunk.records, bytes, metas: chunk.metas };
  }
}

/** A buffer of at least `needed` bytes (doubling) holding the first `used` bytes of `buffer`. */
function grow(buffer: Buffer, used: number, needed: number): Buffer {
  let capacity = Math.max(buffer.length, 1024);
  while (capacity < needed) capacity *= 2;
  const bigger = Buffer.allocUnsafe(capacity);
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

export function isOversize<M>(result: Chunk<M>[] | OversizeItem): result is OversizeItem {
  return !Array.isArray(result);
}
