import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** Every file below `root`, as paths relative to it, sorted (for showing people what was written). */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}
