import { fdatasync, writeSync } from 'node:fs';
import { open, stat, truncate, mkdir, type FileHandle } from 'node:fs/promises';
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
  /** append, telling where the line went: readLine reads it back (what is too large to keep in memory). */
  appendLocated(event: E): Promise<JournalLine>;
  /** The event of a line this journal holds (told by appendLocated, or by readJournalEvents). */
  readLine(line: JournalLine): Promise<E>;
  close(): Promise<void>;
}

/** Where one event's line is in the journal file: its byte offset and length (without the line feed). */
export interface JournalLine {
  offset: number;
  length: number;
}

/** The journal of a run that journals nothing (a dry run, a validation): it sends nothing to read back. */
export function discardingJournal<E>(): Journal<E> {
  const nothing = () => Promise.reject(new Error('a run that journals nothing has no journal lines'));
  return { append: async () => undefined, appendLocated: nothing, readLine: nothing, close: async () => undefined };
}

/** What one read takes of the file: lines are cut from these pieces, never from the whole file as one string. */
const READ_BYTES = 1 << 20;

/**
 * Visits every whole event of the journal in order (with `only`, those whose line holds that text; the
 * others are not parsed, so not checked either); returns the byte length of the lines read (a torn
 * last line is not counted). Read in 1 MiB pieces: a migration's journal (two events a reply) can pass
 * the longest string V8 makes (about 512 MB), and folding events as they come keeps none of them.
 */
export async function readJournalEvents<E>(path: string, visit: (event: E, line: JournalLine) => void, only?: { containing: string }): Promise<{ validBytes: number }> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { validBytes: 0 };
    throw error;
  }
  try {
    const size = (await file.stat()).size;
    const lines = { path, size, lineNo: 0, validBytes: 0, ...(only ? { only: Buffer.from(only.containing) } : {}) };
    let carry = Buffer.alloc(0);
    let at = 0;
    while (at < size) {
      const piece = Buffer.allocUnsafe(Math.min(READ_BYTES, size - at));
      const { bytesRead } = await file.read(piece, 0, piece.length, at);
      if (bytesRead === 0) break;
      const bytes = carry.length > 0 ? Buffer.concat([carry, piece.subarray(0, bytesRead)]) : piece.subarray(0, bytesRead);
      const startOffset = at - carry.length;
      at += bytesRead;
      const consumed = visitLines(bytes, startOffset, lines, visit);
      if (consumed < 0) return { validBytes: lines.validBytes };
      carry = Buffer.from(bytes.subarray(consumed));
    }
    // What is left without a line feed is a torn last line: written partly when the process died.
    return { validBytes: lines.validBytes };
  } finally {
    await file.close();
  }
}

/**
 * Visits the whole lines of `bytes` (which start at file offset `startOffset`); returns how many bytes
 * they took, or -1 at a damaged last line (the read ends there).
 */
function visitLines<E>(bytes: Buffer, startOffset: number, lines: { path: string; size: number; lineNo: number; validBytes: number; only?: Buffer }, visit: (event: E, line: JournalLine) => void): number {
  let offset = 0;
  for (;;) {
    const end = bytes.indexOf(10, offset);
    if (end === -1) return offset;
    lines.lineNo++;
    // A reader that wants few lines (`only`) does not parse the others: a migration's journal holds millions.
    if (lines.only !== undefined && bytes.subarray(offset, end).indexOf(lines.only) === -1) {
      offset = end + 1;
      lines.validBytes = startOffset + offset;
      continue;
    }
    let event: E;
    try {
      event = parseJsonExact(bytes.toString('utf8', offset, end), 'bigint') as E;
    } catch (cause) {
      // Unreadable but followed by nothing: the torn last line of a crash.
      if (startOffset + end === lines.size - 1) return -1;
      throw new ChatportError(`state journal ${lines.path} is damaged at line ${lines.lineNo}; move it aside to start over`, {
        code: 'STATE_CORRUPT',
        details: { path: lines.path, line: lines.lineNo },
        cause,
      });
    }
    visit(event, { offset: startOffset + offset, length: end - offset });
    offset = end + 1;
    lines.validBytes = startOffset + offset;
  }
}

/** Every whole event of the journal (those `keep` takes), in order, and the byte length of the lines read. */
export async function readJournal<E>(path: string, keep: (event: E) => boolean = () => true): Promise<{ events: E[]; validBytes: number }> {
  const events: E[] = [];
  const { validBytes } = await readJournalEvents<E>(path, (event) => {
    if (keep(event)) events.push(event);
  });
  return { events, validBytes };
}

/**
 * Opens the journal for appending, first cutting off a torn last line left by a crash.
 *
 * Durability: an append resolves once its line is written to the file (the OS has it), which survives
 * the process being killed at any instant, SIGKILL included. The file is fsynced every `syncEveryMs` and
 * on close, not per event: losing the last events to a power failure only makes a resumed run send some
 * chunks again, which the items' idempotency keys make harmless, while an fsync per event costs more CPU
 * than the import's own work on small chunks.
 *
 * Each line is one synchronous write: a small append to the page cache takes a few µs, where a write
 * stream's trip through the thread pool cost about 40 µs of CPU an event (docs/architecture.md). A
 * failed write leaves the journal refusing every later append, so no line follows a torn one.
 */
export async function openJournal<E>(path: string, validBytes: number, options: { syncEveryMs?: number } = {}): Promise<Journal<E>> {
  await mkdir(dirname(path), { recursive: true });
  const { size } = await stat(path).catch(() => ({ size: 0 }));
  if (size > validBytes) await truncate(path, validBytes);
  const file = await open(path, 'a');
  const fd = file.fd;
  // Where the next line goes: the file is only appended to, by this process (its lock held).
  let end = Math.min(size, validBytes);
  let reader: Promise<FileHandle> | undefined;
  let dirty = false;
  let failure: unknown;
  // The sync under way, if any: close waits for it, so the descriptor is never closed under it.
  let syncing = Promise.resolve();
  const sync = () => {
    if (!dirty) return syncing;
    dirty = false;
    syncing = syncing.then(() => new Promise<void>((resolve) => fdatasync(fd, () => resolve())));
    return syncing;
  };
  const timer = setInterval(() => void sync(), options.syncEveryMs ?? 250);
  timer.unref();
  const appendLocated = (event: E): Promise<JournalLine> => {
    if (failure !== undefined) return Promise.reject(failure);
    const bytes = Buffer.from(`${stringifyJson(event)}\n`);
    const line = { offset: end, length: bytes.length - 1 };
    try {
      writeWhole(fd, bytes);
    } catch (error) {
      failure = error;
      return Promise.reject(error);
    }
    end += bytes.length;
    dirty = true;
    return Promise.resolve(line);
  };
  return {
    append: (event) => appendLocated(event).then(() => undefined),
    appendLocated,
    async readLine(line) {
      const handle = await (reader ??= open(path, 'r'));
      const bytes = Buffer.alloc(line.length);
      const { bytesRead } = await handle.read(bytes, 0, line.length, line.offset);
      return parseJsonExact(bytes.toString('utf8', 0, bytesRead), 'bigint') as E;
    },
    async close() {
      clearInterval(timer);
      await sync();
      await file.close();
      if (reader) await (await reader).close();
    },
  };
}

/** writeSync until every byte is written (a write may take fewer than it was given). */
function writeWhole(fd: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
}
