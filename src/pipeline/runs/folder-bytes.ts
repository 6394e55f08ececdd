import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes the files under `dir` hold (their sizes, as `du --apparent-size` counts them); 0 when it is gone. */
export async function folderBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await folderBytes(path) : (await lstat(path)).size;
  }
  return total;
}
