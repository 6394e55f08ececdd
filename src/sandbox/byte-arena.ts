/**
 * Append-only storage of byte strings, addressed by a number (its place). In memory, bytes live in 16 MiB
 * buffers outside the JavaScript heap, so the garbage collector never walks them; on disk (`--data`), they
 * are appended to a file and read back with a positioned read, so a rehearsal of tens of millions of
 * messages keeps only their places in memory (docs/sandbox.md "Memory").
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

export interface ByteArena {
  /** Stores `text` as UTF-8; returns its place, to give to read(). */
  append(text: string): number;
  /**
   * Room for up to `most` bytes, to write in place (no copy of a composed text): the returned buffer,
   * from `writeOffset`. commit() then stores the `length` bytes written and returns their place.
   */
  reserve(most: number): Buffer;
  readonly writeOffset: number;
  commit(length: number): number;
  /** The text stored at `place`. */
  read(place: number): string;
  /** Bytes stored so far. */
  readonly bytes: number;
  close(): void;
}

const CHUNK_BYTES = 16 * 2 ** 20;
/** A place is chunk × 2^32 + offset; the length is kept with the bytes as a 4-byte prefix. */
const CHUNK_SPAN = 2 ** 32;
const PREFIX = 4;

export class MemoryArena implements ByteArena {
  private readonly chunks: Buffer[] = [];
  private current = Buffer.allocUnsafeSlow(0);
  private used = 0;
  bytes = 0;

  append(text: string): number {
    // Worst case of UTF-8: three bytes per UTF-16 code unit.
    const into = this.reserve(text.length * 3);
    return this.commit(into.write(text, this.writeOffset, 'utf8'));
  }

  reserve(most: number): Buffer {
    if (this.used + PREFIX + most > this.current.length) this.startChunk(PREFIX + most);
    return this.current;
  }

  get writeOffset(): number {
    return this.used + PREFIX;
  }

  commit(length: number): number {
    const offset = this.used;
    this.current.writeUInt32LE(length, offset);
    this.used += PREFIX + length;
    this.bytes += PREFIX + length;
    return (this.chunks.length - 1) * CHUNK_SPAN + offset;
  }

  read(place: number): string {
    const chunk = this.chunks[Math.floor(place / CHUNK_SPAN)]!;
    const offset = place % CHUNK_SPAN;
    const length = chunk.readUInt32LE(offset);
    return chunk.toString('utf8', offset + PREFIX, offset + PREFIX + length);
  }

  close(): void {
    this.chunks.length = 0;
  }

  private startChunk(atLeast: number): void {
    this.current = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, atLeast));
    this.chunks.push(this.current);
    this.used = 0;
  }
}

/** Bytes appended to one file (rewritten at every start: the journal, not this file, is the durable state). */
export class FileArena implements ByteArena {
  private readonly fd: number;
  private readonly pending: Buffer;
  private pendingUsed = 0;
  /** Bytes written to the file; the pending buffer follows them. */
  private flushed = 0;
  /** A text larger than the pending buffer, written alone (reserve() handed out this buffer for it). */
  private large: Buffer | undefined;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w+');
    this.pending = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  }

  append(text: string): number {
    const into = this.reserve(text.length * 3);
    return this.commit(into.write(text, this.writeOffset, 'utf8'));
  }

  reserve(most: number): Buffer {
    if (this.pendingUsed + PREFIX + most > this.pending.length) this.flush();
    if (PREFIX + most <= this.pending.length) return this.pending;
    this.large = Buffer.allocUnsafe(PREFIX + most);
    return this.large;
  }

  get writeOffset(): number {
    return this.large ? PREFIX : this.pendingUsed + PREFIX;
  }

  commit(length: number): number {
    if (this.large) return this.commitLarge(length);
    const place = this.flushed + this.pendingUsed;
    this.pending.writeUInt32LE(length, this.pendingUsed);
    this.pendingUsed += PREFIX + length;
    this.bytes += PREFIX + length;
    return place;
  }

  read(place: number): string {
    if (place >= this.flushed) {
      const offset = place - this.flushed;
      const length = this.pending.readUInt32LE(offset);
      return this.pending.toString('utf8', offset + PREFIX, offset + PREFIX + length);
    }
    const head = Buffer.allocUnsafe(PREFIX);
    readSync(this.fd, head, 0, PREFIX, place);
    const body = Buffer.allocUnsafe(head.readUInt32LE(0));
    readSync(this.fd, body, 0, body.length, place + PREFIX);
    return body.toString('utf8');
  }

  close(): void {
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.pendingUsed === 0) return;
    writeAll(this.fd, this.pending.subarray(0, this.pendingUsed), this.flushed);
    this.flushed += this.pendingUsed;
    this.pendingUsed = 0;
  }

  private commitLarge(length: number): number {
    const large = this.large!;
    this.large = undefined;
    large.writeUInt32LE(length, 0);
    const place = this.flushed;
    writeAll(this.fd, large.subarray(0, PREFIX + length), place);
    this.flushed += PREFIX + length;
    this.bytes += PREFIX + length;
    return place;
  }
}

function writeAll(fd: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
