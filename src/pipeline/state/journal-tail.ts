import { open } from 'node:fs/promises';

/** What the first tail read takes; doubled until it holds the last whole line. */
const FIRST_TAIL_BYTES = 1 << 16;

/**
 * Whether a state folder's latest run ended, from its journal's last whole line alone: a run's `run-ended`
 * is the last line it writes, and a new run begins with `run-started`, so the run ended exactly when the
 * last line is a `run-ended` (a torn line after it, left by a crash, is not a line). `none`: no run yet.
 * Reads the end of the file only: a migration's journal holds millions of events, and a shard asks this
 * of every other shard's folder as it starts (shards/count-change.ts).
 */
export async function latestRunEnded(journalPath: string): Promise<'none' | 'ended' | 'unfinished'> {
  const file = await open(journalPath, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (file === undefined) return 'none';
  try {
    const size = (await file.stat()).size;
    for (let want = FIRST_TAIL_BYTES; ; want *= 2) {
      const start = Math.max(0, size - want);
      const tail = Buffer.allocUnsafe(size - start);
      const { bytesRead } = await file.read(tail, 0, tail.length, start);
      const text = tail.subarray(0, bytesRead);
      // What follows the last line feed is a torn line: not written whole.
      const end = text.lastIndexOf(10);
      if (end === -1) {
        if (start === 0) return 'none';
        continue;
      }
      // (A negative offset would search from the buffer's end.)
      const begin = end === 0 ? -1 : text.lastIndexOf(10, end - 1);
      if (begin === -1 && start > 0) continue;
      return lineKind(text.toString('utf8', begin + 1, end));
    }
  } finally {
    await file.close();
  }
}

function lineKind(line: string): 'ended' | 'unfinished' {
  try {
    return (JSON.parse(line) as { t?: unknown }).t === 'run-ended' ? 'ended' : 'unfinished';
  } catch {
    // A damaged line: the shard's own import says so (STATE_CORRUPT); here it has not ended.
    return 'unfinished';
  }
}
