import { createWriteStream, fdatasync } from 'node:fs';
import { once } from 'node:events';
import { readFile, stat, truncate, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';

/**
 * An append-only NDJSON journal, the durable half of run state.
 *
 * Why a journal: a crash at any instant must leave state readable. Appending lines is atomic enough:
 * after a crash the file holds every fully written line plus, at worst, one torn last line, which
 * `readJournal` drops (and `openJournal` truncates away before appending again). A torn or
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
      events.push(parseJsonExact(line, 'bigint') as E);
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

/**
 * Opens the journal for appending, first cutting off a torn last line left by a crash.
 *
 * Durability: an append resolves once its line is written to the file (the OS has it), which survives
 * the process being killed at any instant, SIGKILL included. The file is fsynced every `syncEveryMs` and
 * on close, not per event: losing the last events to a power failure only makes a resumed run send some
 * chunks again, which the items' idempotency keys make harmless, while an fsync per event costs more CPU
 * than the import's own work on small chunks.
 */
export async function openJournal<E>(path: string, validBytes: number, options: { syncEveryMs?: number } = {}): Promise<Journal<E>> {
  await mkdir(dirname(path), { recursive: true });
  const { size } = await stat(path).catch(() => ({ size: 0 }));
  if (size > validBytes) await truncate(path, validBytes);
  const stream = createWriteStream(path, { flags: 'a' });
  const [fd] = (await once(stream, 'open')) as [number];
  let dirty = false;
  const sync = () =>
    new Promise<void>((resolve) => {
      if (!dirty) return resolve();
      dirty = false;
      fdatasync(fd, () => resolve());
    });
  const timer = setInterval(() => void sync(), options.syncEveryMs ?? 250);
  timer.unref();
  return {
    append(event: E) {
      dirty = true;
      return new Promise<void>((resolve, reject) => {
        stream.write(`${stringifyJson(event)}\n`, (error) => (error ? reject(error) : resolve()));
      });
    },
    async close() {
      clearInterval(timer);
      // Everything written so far, then one fsync, then the file is closed.
      await new Promise<void>((resolve) => stream.write('', () => resolve()));
      await sync();
      await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    },
  };
}
