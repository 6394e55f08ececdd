/**
 * Splits typed rows of a window into one row stream per UTC day (`dt=…`), in day order.
 *
 * One day: the rows go straight through (the nightly case; nothing is spooled). Several days: the
 * platform's export is ordered by id, not by day, and each day's partition is written and published as
 * a whole in turn, so the rows are first spooled to one local file per day (v8 serialisation keeps
 * bigint and Date exact), then read back day by day. Memory stays flat either way; the spool takes
 * about the typed rows' size on disk and is removed at the end.
 *
 * A run killed outright (kill -9, OOM) cannot remove its spool, which can take gigabytes: it is a spill
 * folder (spill-folders.ts), which a later run on the host removes once its owner is gone.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { makeSpillFolder, SPILL_PREFIXES } from '../../shared/spill-folders.js';
import type { Row } from '../../sinks/index.js';
import { dayOfMicros } from './export-window.js';

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
  const dir = makeSpillFolder(SPILL_PREFIXES.exportDays);
  try {
    const rowsByDay = await spoolByDay(rows, column, days, dir);
    onSpooled?.(rowsByDay);
    for (const date of days) yield { date, rows: readSpool(spoolPath(dir, date)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
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
