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
  /** Stores bytes that are already UTF-8 (a view: they are copied); returns their place. */
  appendBytes(bytes: Uint8Array): number;
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
    const most = PREFIX + text.length * 3;
    if (this.used + most > this.current.length) this.startChunk(most);
    const offset = this.used;
    const length = this.current.write(text, offset + PREFIX, 'utf8');
    this.current.writeUInt32LE(length, offset);
    this.used += PREFIX + length;
    this.bytes += PREFIX + length;
    return (this.chunks.length - 1) * CHUNK_SPAN + offset;
  }

  appendBytes(bytes: Uint8Array): number {
    const most = PREFIX + bytes.length;
    if (this.used + most > this.current.length) this.startChunk(most);
    const offset = this.used;
    this.current.writeUInt32LE(bytes.length, offset);
    this.current.set(bytes, offset + PREFIX);
    this.used += most;
    this.bytes += most;
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
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w+');
    this.pending = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  }

  append(text: string): number {
    const most = PREFIX + text.length * 3;
    if (this.pendingUsed + most > this.pending.length) this.flush();
    if (most > this.pending.length) return this.appendLarge(Buffer.from(text, 'utf8'));
    const place = this.flushed + this.pendingUsed;
    const length = this.pending.write(text, this.pendingUsed + PREFIX, 'utf8');
    this.pending.writeUInt32LE(length, this.pendingUsed);
    this.pendingUsed += PREFIX + length;
    this.bytes += PREFIX + length;
    return place;
  }

  appendBytes(bytes: Uint8Array): number {
    const most = PREFIX + bytes.length;
    if (this.pendingUsed + most > this.pending.length) this.flush();
    if (most > this.pending.length) return this.appendLarge(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    const place = this.flushed + this.pendingUsed;
    this.pending.writeUInt32LE(bytes.length, this.pendingUsed);
    this.pending.set(bytes, this.pendingUsed + PREFIX);
    this.pendingUsed += most;
    this.bytes += most;
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

  private appendLarge(body: Buffer): number {
    const head = Buffer.allocUnsafe(PREFIX);
    head.writeUInt32LE(body.length, 0);
    const place = this.flushed;
    writeAll(this.fd, Buffer.concat([head, body]), place);
    this.flushed += PREFIX + body.length;
    this.bytes += PREFIX + body.length;
    return place;
  }
}

function writeAll(fd: number, bytes: Buffer, position: number): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
