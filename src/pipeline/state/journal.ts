import { open, readFile, truncate, mkdir, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ChatportError } from '../../shared/errors.js';

/**
 * An append-only NDJSON journal, the durable half of run state.
 *
 * Why a journal: a crash at any instant must leave state readable. Appending one line and fsyncing it
 * is atomic enough: after a crash the file holds every fully written line plus, at worst, one torn last
 * line, which `readJournal` drops (and `openJournal` truncates away before appending again). A torn or
 * corrupt line anywhere *but* the end means the file was damaged by something else, and is an error.
 */
export interface Journal<E> {
  append(event: E): Promise<void>;
  close(): Promise<void>;
}

export async function readJournal<E>(path: string): Promise<{ events: E[]; validBytes: number }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], validBytes: 0 };
    throw error;
  }
  const events: E[] = [];
  let offset = 0;
  let lineNo = 0;
  while (offset < text.length) {
    const end = text.indexOf('\n', offset);
    lineNo++;
    if (end === -1) break; // torn last line: written partly when the process died
    const line = text.slice(offset, end);
    try {
      events.push(JSON.parse(line) as E);
    } catch (cause) {
      const isLast = end === text.length - 1;
      if (isLast) break;
      throw new ChatportError(`state journal ${path} is damaged at line ${lineNo}; move it aside to start over`, {
        code: 'STATE_CORRUPT',
        details: { path, line: lineNo },
        cause,
      });
    }
    offset = end + 1;
  }
  return { events, validBytes: Buffer.byteLength(text.slice(0, offset)) };
}

/** Opens the journal for appending, first cutting off a torn last line left by a crash. */
export async function openJournal<E>(path: string, validBytes: number): Promise<Journal<E>> {
  await mkdir(dirname(path), { recursive: true });
  const handle: FileHandle = await open(path, 'a');
  const { size } = await handle.stat();
  if (size > validBytes) await truncate(path, validBytes);
  let queue: Promise<void> = Promise.resolve();
  return {
    // Appends are serialized so lines never interleave, and each is on disk before the promise resolves.
    append(event: E) {
      const line = `${JSON.stringify(event)}\n`;
      queue = queue.then(async () => {
        await handle.write(line);
        await handle.datasync();
      });
      return queue;
    },
    async close() {
      await queue.catch(() => undefined);
      await handle.close();
    },
  };
}
