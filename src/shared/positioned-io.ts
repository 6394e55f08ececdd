import { readSync, writeSync } from 'node:fs';

/** Reads `bytes` at `position` into `into` from `at` (a read may return fewer); `what` names the file in the error if it ends first. */
export function readFully(fd: number, into: Buffer, bytes: number, position: number, what: string, at = 0): void {
  for (let done = 0; done < bytes; ) {
    const got = readSync(fd, into, at + done, bytes - done, position + done);
    if (got === 0) throw new Error(`${what} ended early (at byte ${position + done})`);
    done += got;
  }
}

/** Writes the first `bytes` of `from` at `position` (a write may take fewer). */
export function writeFully(fd: number, from: Buffer, bytes: number, position: number): void {
  for (let done = 0; done < bytes; ) done += writeSync(fd, from, done, bytes - done, position + done);
}
