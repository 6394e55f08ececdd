/**
 * Splits typed rows of a window into one row stream per UTC day (`dt=…`), in day order.
 *
 * One day: the rows go straight through (the nightly case; nothing is spooled). Several days: the
 * platform's export is ordered by id, not by day, and each day's partition is written and published as
 * a whole in turn, so the rows are first spooled to one local file per day (v8 serialisation keeps
 * bigint and Date exact), then read back day by day. Memory stays flat either way; the spool takes
 * about the typed rows' size on disk and is removed at the end.
 *
 * A run killed outright (kill -9, OOM) cannot remove its spool, which can take gigabytes, so the spool
 * folder holds its owner (pid, host, a token, as lock files do) and every later export run on the host
 * removes the spools whose owner is gone (removeStaleSpools).
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { realNow } from '../../shared/async.js';
import { readTextIfExists } from '../../shared/read-if-exists.js';
import type { Row } from '../../sinks/index.js';
import { isStale, newLockOwner, parseLockOwner } from '../state/lock-owner.js';
import { dayOfMicros } from './export-window.js';

const SPOOL_PREFIX = 'chatport-export-days-';
const SPOOL_OWNER = 'owner.json';
/** Tokens of the spools this process holds: one naming this pid but none of them is an earlier process's. */
const spoolsHeld = new Set<string>();

/** A new spool folder in `root`, its owner written before any row. */
async function createSpool(root: string): Promise<{ dir: string; token: string }> {
  const dir = await mkdtemp(join(root, SPOOL_PREFIX));
  const owner = newLockOwner(realNow());
  spoolsHeld.add(owner.token);
  await writeFile(join(dir, SPOOL_OWNER), JSON.stringify(owner));
  return { dir, token: owner.token };
}

/**
 * Removes the spool folders in `root` (default the OS temp folder) left by export runs that are gone: a pid
 * of this host that no longer runs, or this pid in an earlier life (a restarted container). A spool without
 * an owner file (an older chatport's, or one being created) or of another host is left alone. Returns the
 * folders removed.
 */
export async function removeStaleSpools(root: string = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(SPOOL_PREFIX))) {
    const dir = join(root, name);
    const text = await readTextIfExists(join(dir, SPOOL_OWNER)).catch(() => undefined);
    if (text === undefined || !isStale(parseLockOwner(text), 0, Infinity, spoolsHeld)) continue;
    await rm(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

export interface DayRows {
  date: string;
  rows: AsyncIterable<Row>;
}

/**
 * Every day of `days` in order, each with its rows (possibly none); `column` holds epoch microseconds.
 * Several days: `onSpooled` is told how many rows each day holds once all are spooled, before the first day
 * is handed out (it may throw to stop the run before anything is written).
 */
export async function* partitionByDay(
  rows: AsyncIterable<Row>, column: string, days: readonly string[], onSpooled?: (rowsByDay: ReadonlyMap<string, number>) => void,
): AsyncGenerator<DayRows> {
  if (days.length === 1) {
    yield { date: days[0]!, rows };
    return;
  }
  const { dir, token } = await createSpool(tmpdir());
  try {
    const rowsByDay = await spoolByDay(rows, column, days, dir);
    onSpooled?.(rowsByDay);
    for (const date of days) yield { date, rows: readSpool(spoolPath(dir, date)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
    spoolsHeld.delete(token);
  }
}

const spoolPath = (dir: string, date: string) => join(dir, `${date}.v8`);

/** Spools the rows to one file per day; returns how many rows each day got. */
async function spoolByDay(rows: AsyncIterable<Row>, column: string, days: readonly string[], dir: string): Promise<Map<string, number>> {
  const files = new Map<string, WriteStream>(days.map((d) => [d, createWriteStream(spoolPath(dir, d))]));
  const counts = new Map<string, number>(days.map((d) => [d, 0]));
  try {
    for await (const row of rows) {
      // The rows were filtered to the window already, so every day has its file.
      const day = dayOfMicros(row[column] as bigint);
      const file = files.get(day)!;
      counts.set(day, counts.get(day)! + 1);
      const body = serialize(row);
      const frame = Buffer.allocUnsafe(4 + body.length);
      frame.writeUInt32LE(body.length, 0);
      body.copy(frame, 4);
      if (!file.write(frame)) await once(file, 'drain');
    }
    return counts;
  } finally {
    await Promise.all([...files.values()].map((f) => new Promise<void>((resolve, reject) => f.end((error?: Error | null) => (error ? reject(error) : resolve())))));
  }
}

async function* readSpool(path: string): AsyncGenerator<Row> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(path)) {
    pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
    let at = 0;
    while (pending.length - at >= 4) {
      const size = pending.readUInt32LE(at);
      if (pending.length - at - 4 < size) break;
      yield deserialize(pending.subarray(at + 4, at + 4 + size)) as Row;
      at += 4 + size;
    }
    pending = pending.subarray(at);
  }
  if (pending.length > 0) throw new Error(`day spool ${path} ends inside a row (${pending.length} bytes left)`);
}
