import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** The first `n` lines of a text file (none when it does not exist), read without loading the file. */
export async function readFirstLines(path: string, n: number): Promise<string[]> {
  const out: string[] = [];
  const stream = createReadStream(path, 'utf8');
  try {
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      if (out.length >= n) break;
      if (line) out.push(line);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  } finally {
    stream.destroy();
  }
  return out;
}
