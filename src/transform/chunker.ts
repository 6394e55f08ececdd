import { reason } from './types.js';
import type { Reason } from './types.js';

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
  group: number | string | undefined;
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
  group: number | string | undefined;
  parts: string[];
  metas: M[];
  bytes: number;
}

const NONE: never[] = [];

/**
 * Groups items into JSON array chunks bounded by records AND bytes. Deterministic: the same items, groups
 * and options always give byte-identical chunks in the same order (nothing depends on time or on how the
 * input was read). Each item is serialized exactly once, with JSON.stringify.
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
  private readonly open = new Map<number | string | undefined, OpenChunk<M>>();
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
  add(item: unknown, meta: M, group?: number | string): Chunk<M>[] | OversizeItem {
    const json = JSON.stringify(item);
    const size = Buffer.byteLength(json);
    if (size + 2 > this.maxBytes)
      return { kind: 'oversize', reason: reason('', `an item of at most ${this.maxBytes - 2} bytes as JSON (chunkBytes ${this.maxBytes})`, `${size} bytes`) };
    let done: Chunk<M>[] = NONE;
    let chunk = this.open.get(group);
    if (chunk !== undefined && chunk.bytes + 1 + size > this.maxBytes) {
      done = [this.close(chunk)];
      chunk = undefined;
    }
    if (chunk === undefined) {
      if (this.open.size >= this.maxOpenGroups) {
        const oldest = this.open.values().next().value as OpenChunk<M>;
        done = done === NONE ? [this.close(oldest)] : [...done, this.close(oldest)];
      }
      chunk = { group, parts: [], metas: [], bytes: 2 };
      this.open.set(group, chunk);
    }
    const added = chunk.parts.length === 0 ? size : size + 1;
    chunk.bytes += added;
    this.openBytes += added;
    chunk.parts.push(json);
    chunk.metas.push(meta);
    if (chunk.parts.length >= this.maxRecords) done = done === NONE ? [this.close(chunk)] : [...done, this.close(chunk)];
    while (this.openBytes > this.maxOpenBytes && this.open.size > 0) {
      const oldest = this.open.values().next().value as OpenChunk<M>;
      done = done === NONE ? [this.close(oldest)] : [...done, this.close(oldest)];
    }
    return done;
  }

  /** Finishes every open chunk, in the order their groups were opened. */
  finish(): Chunk<M>[] {
    return [...this.open.values()].map((chunk) => this.close(chunk));
  }

  private close(chunk: OpenChunk<M>): Chunk<M> {
    this.open.delete(chunk.group);
    this.openBytes -= chunk.bytes - 2;
    const bytes = Buffer.from(`[${chunk.parts.join(',')}]`);
    return { seq: this.seq++, group: chunk.group, records: chunk.parts.length, bytes, metas: chunk.metas };
  }
}

export function isOversize<M>(result: Chunk<M>[] | OversizeItem): result is OversizeItem {
  return !Array.isArray(result);
}
