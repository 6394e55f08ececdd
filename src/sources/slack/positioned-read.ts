import { read, readSync } from 'node:fs';

/**
 * A positioned read, synchronous when it is small: an asynchronous read costs about 50 µs of CPU in the
 * hand-off to the thread pool against a few microseconds for a small read itself, and day files are read
 * in a read or two of a few kilobytes. Reads over `syncUpTo` bytes go to the pool, so the event loop
 * never waits long.
 */
export function readAt(fd: number, into: Buffer, offset: number, length: number, position: number, syncUpTo: number): Promise<number> | number {
  if (length <= syncUpTo) return readSync(fd, into, offset, length, position);
  return new Promise((resolve, reject) => read(fd, into, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}
