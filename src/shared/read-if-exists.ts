import { readFile } from 'node:fs/promises';

/** A text file's content, or undefined when it does not exist; any other failure is thrown. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
