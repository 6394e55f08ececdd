/**
 * Keeping the sandbox's state across restarts (`--data <dir>`): a snapshot plus an append-only journal,
 * both NDJSON files of the same ops the store applies (store.ts `StoreOp`).
 *
 * Why not an embedded database: the state is a handful of Maps already held in memory, every change is
 * already one op, and replaying ops through `Store.apply` is the same code path as running. A journal of
 * those ops gives durability per change for the price of an append; no native module, no schema to keep
 * in step. Why NDJSON and not one JSON document: a million messages would not fit one V8 string, and a
 * torn last line of the journal (power cut mid-append) is dropped on load; damage anywhere else stops the
 * start with the file, line and byte offset.
 *
 * Layout: `<dir>/state.ndjson` (snapshot, replaced only by temp file + fsync + rename, so it is always
 * whole) and `<dir>/journal.ndjson` (ops since that snapshot). On open the journal is folded into a fresh
 * snapshot and emptied; on close it is only flushed (folding 10M messages takes minutes, more than a stop's
 * grace period). `<dir>/message-texts.bin` holds the messages' texts for the running store (byte-arena.ts):
 * rebuilt from these files at every start, never read as state.
 */
import { createReadStream, existsSync, mkdirSync, openSync, writeSync, fsyncSync, closeSync, renameSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ChatportError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { parseJsonExact, stringifyJson } from '../shared/lossless-json.js';
import type { Store, StoreOp } from './store.js';

const SNAPSHOT = 'state.ndjson';
const JOURNAL = 'journal.ndjson';

export interface Persistence {
  /** Writes pending ops to the journal (synchronously; called before each response and per import chunk). */
  flush(): void;
  /** Folds everything into a new snapshot and empties the journal. */
  compact(): void;
}

/** Loads `dir` into `store` (true when there was state), then journals every later change there. */
export async function openPersistence(dir: string, store: Store, logger: Logger): Promise<{ persistence: Persistence; loaded: boolean }> {
  mkdirSync(dir, { recursive: true });
  const snapshotPath = join(dir, SNAPSHOT);
  const journalPath = join(dir, JOURNAL);
  let loaded = false;
  for (const path of [snapshotPath, journalPath]) {
    if (!existsSync(path)) continue;
    const count = await replay(path, store, logger, { tornLastLineAllowed: path === journalPath });
    loaded ||= count > 0;
  }
  let pending: string[] = [];
  const persistence: Persistence = {
    flush() {
      if (pending.length === 0) return;
      const text = pending.join('');
      pending = [];
      appendFileSync(journalPath, text);
    },
    compact() {
      persistence.flush();
      writeSnapshot(snapshotPath, store);
      writeFileSync(journalPath, '');
    },
  };
  persistence.compact();
  store.journal = (op) => {
    // Properties may hold integers beyond 2^53 (bigints): JSON.stringify would throw after the op applied.
    pending.push(stringifyJson(op) + '\n');
    // Bound memory if a caller forgets to flush during a long import.
    if (pending.length >= 10_000) persistence.flush();
  };
  return { persistence, loaded };
}

/**
 * Applies every op of one file. Only the journal's last line may be torn (a crash mid-append), and only
 * it is dropped; a bad line anywhere else, or anywhere in the snapshot (written whole, then renamed), is
 * damage: the sandbox refuses to start, naming the file, line and byte offset, rather than lose a change.
 */
async function replay(path: string, store: Store, logger: Logger, options: { tornLastLineAllowed: boolean }): Promise<number> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let count = 0;
  let lineNo = 0;
  let offset = 0;
  let unreadable: { line: number; offset: number; cause: unknown } | undefined;
  for await (const line of lines) {
    lineNo++;
    const lineOffset = offset;
    offset += Buffer.byteLength(line) + 1;
    if (line.trim() === '') continue;
    // A bad line followed by another line was not the last one: not a torn append.
    if (unreadable) throw damaged(path, unreadable);
    let op: StoreOp;
    try {
      op = parseJsonExact(line, 'bigint') as StoreOp;
    } catch (cause) {
      unreadable = { line: lineNo, offset: lineOffset, cause };
      continue;
    }
    store.apply(op);
    count++;
  }
  if (unreadable && !options.tornLastLineAllowed) throw damaged(path, unreadable);
  if (unreadable) logger.warn({ file: path, line: unreadable.line, byteOffset: unreadable.offset }, 'sandbox state: dropping a torn last line (a crash mid-append)');
  return count;
}

function damaged(path: string, at: { line: number; offset: number; cause: unknown }): ChatportError {
  return new ChatportError(
    `sandbox state ${path} is damaged at line ${at.line} (byte ${at.offset}): not a JSON op, and not a torn last line; ` +
      'repair or remove that line, or move the --data folder aside to start empty',
    { code: 'DATA_INVALID', details: { file: path, line: at.line, byteOffset: at.offset }, cause: at.cause },
  );
}

function writeSnapshot(path: string, store: Store): void {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w');
  try {
    let buffer: string[] = [];
    let size = 0;
    for (const op of store.dump()) {
      const line = stringifyJson(op) + '\n';
      buffer.push(line);
      size += line.length;
      if (size > 1 << 20) {
        writeSync(fd, buffer.join(''));
        buffer = [];
        size = 0;
      }
    }
    if (buffer.length > 0) writeSync(fd, buffer.join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}
