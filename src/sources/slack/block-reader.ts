import { close, createReadStream, openSync, read, readSync } from 'node:fs';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

const keepOpen = (_fd: number, callback: (error: null) => void) => callback(null);

/** One synchronous read of this much serves the directory records of some ten thousand files. */
const BLOCK_BYTES = 1024 * 1024;

/**
 * The zip's bytes for yauzl, with its small reads served from one cached block. yauzl lists the central
 * directory with two small reads per entry; through its own reader each is an asynchronous fs.read, which
 * costs a thread-pool hand-off apiece (six seconds of CPU for a 62,000-file export, and the listing is done
 * once per stage that opens the export). Here they are copies out of a 1 MiB block read synchronously once.
 * Entry streams (users.json and other large files) are ordinary positioned file streams.
 */
export class BlockCachedReader extends yauzl.RandomAccessReader {
  private storage: Buffer | undefined;
  private blockStart = 0;
  private blockLength = 0;

  private constructor(
    private readonly fd: number,
    readonly size: number,
  ) {
    super();
  }

  static open(path: string, size: number): BlockCachedReader {
    return new BlockCachedReader(openSync(path, 'r'), size);
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (err: Error | null) => void): void {
    let bytesRead: number;
    try {
      bytesRead = this.readNow(buffer, offset, length, position);
    } catch (error) {
      process.nextTick(callback, error as Error);
      return;
    }
    // yauzl passes the count on (its typings omit it); never call back synchronously: yauzl recurses.
    process.nextTick(callback as (err: Error | null, bytesRead: number) => void, null, bytesRead);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    // A stream given an fd closes it when destroyed, whatever autoClose says: this fd is the reader's.
    return createReadStream('', { fd: this.fd, start, end: end - 1, autoClose: false, fs: { read, close: keepOpen } });
  }

  override close(callback: (err: Error | null) => void): void {
    close(this.fd, (error) => callback(error ?? null));
  }

  private readNow(buffer: Buffer, offset: number, length: number, position: number): number {
    if (length > BLOCK_BYTES) return readSync(this.fd, buffer, offset, length, position);
    const inBlock = position >= this.blockStart && position + length <= this.blockStart + this.blockLength;
    const block = inBlock ? this.storage! : this.loadBlock(position);
    const from = position - this.blockStart;
    const available = Math.max(0, Math.min(length, this.blockLength - from));
    block.copy(buffer, offset, from, from + available);
    return available;
  }

  private loadBlock(position: number): Buffer {
    const block = (this.storage ??= Buffer.allocUnsafe(BLOCK_BYTES));
    const wanted = Math.max(0, Math.min(BLOCK_BYTES, this.size - position));
    this.blockLength = readSync(this.fd, block, 0, wanted, position);
    this.blockStart = position;
    return block;
  }
}
