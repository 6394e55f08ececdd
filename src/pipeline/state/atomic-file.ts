import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes a whole file so that readers (and a restarted run) see either the old content or the new one,
 * never half: write to a temporary name beside it, fsync, then rename over the target. `data` may come in
 * pieces (an iterable of strings): a file of millions of lines need not be one string.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | Iterable<string>): Promise<void> {
  return writeWhole(path, data);
}

/** writeFileAtomic, its pieces made as they are written (read from other files meanwhile). */
export function writeFileAtomicFrom(path: string, pieces: AsyncIterable<string>): Promise<void> {
  return writeWhole(path, pieces);
}

async function writeWhole(path: string, data: string | Uint8Array | Iterable<string> | AsyncIterable<string>): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temp, path);
}
