/**
 * Splits one row stream into files of about `maxFileBytes` each and hands each file's bytes to a writer,
 * counting rows and bytes and computing the sha256 on the way. Only one file is open at a time, and
 * rows are pulled only as fast as the writer takes bytes.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ColumnBatch } from './column-batch.js';
import type { FileEncoder } from './encoders/file-encoder.js';
import type { Row } from './schema.js';

export interface RolledFile {
  sequence: number;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface RollOptions {
  /**
   * A new file starts once the current one holds at least this many (compressed) bytes. Parquet files are
   * checked at row-group boundaries only, so they end on whole row groups.
   */
  maxFileBytes: number;
}

/** Waits out the encoder's output of a finished row group, which arrives a few event-loop turns later. */
const settle = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * Writes files 0, 1, 2… until the rows run out. With no rows at all, one file is still written (a header or
 * a Parquet schema), so an empty day is visible as such.
 */
export function writeRolledFiles(
  rows: AsyncIterable<Row>,
  encoder: FileEncoder,
  options: RollOptions,
  writeFile: (sequence: number, body: Readable) => Promise<void>,
): Promise<RolledFile[]> {
  return writeRolled({ items: rows, rowsIn: () => 1, encode: (items, firstRowNumber) => encoder.encode(items, firstRowNumber) }, encoder, options, writeFile);
}

/** writeRolledFiles for rows in column batches (see FileEncoder.encodeBatches). */
export function writeRolledBatches(
  batches: AsyncIterable<ColumnBatch>,
  encoder: FileEncoder,
  options: RollOptions,
  writeFile: (sequence: number, body: Readable) => Promise<void>,
): Promise<RolledFile[]> {
  const encodeBatches = encoder.encodeBatches?.bind(encoder);
  if (!encodeBatches) throw new Error(`the ${encoder.extension} encoder takes rows, not column batches`);
  return writeRolled({ items: batches, rowsIn: (batch) => batch.length, encode: (items) => encodeBatches(items) }, encoder, options, writeFile);
}

/** What is rolled: rows one by one, or batches of them. */
interface RollInput<T> {
  items: AsyncIterable<T>;
  rowsIn(item: T): number;
  encode(items: AsyncIterable<T>, firstRowNumber: number): AsyncIterable<Uint8Array>;
}

async function writeRolled<T>(
  input: RollInput<T>,
  encoder: FileEncoder,
  options: RollOptions,
  writeFile: (sequence: number, body: Readable) => Promise<void>,
): Promise<RolledFile[]> {
  const iterator = input.items[Symbol.asyncIterator]();
  const files: RolledFile[] = [];
  // The first file is opened before the first item is asked for: a batch may take a while to fill, and the
  // publication has started by then.
  let pending: IteratorResult<T> | undefined;
  let rowsBefore = 0;
  try {
    for (let sequence = 0; sequence === 0 || pending?.done === false; sequence++) {
      const counter = { rows: 0, bytes: 0 };
      const hash = createHash('sha256');

      const fileItems = async function* (): AsyncGenerator<T> {
        pending ??= await iterator.next();
        while (!pending.done) {
          yield pending.value;
          // Counted before the next item is asked for: a batch may be refilled by then.
          counter.rows += input.rowsIn(pending.value);
          pending = await iterator.next();
          if (pending.done) return;
          if (counter.rows % encoder.rollEveryRows === 0) {
            if (encoder.rollEveryRows > 1) await settle();
            if (counter.bytes >= options.maxFileBytes) return;
          }
        }
      };
      const bytes = async function* (): AsyncGenerator<Uint8Array> {
        for await (const chunk of input.encode(fileItems(), rowsBefore + 1)) {
          hash.update(chunk);
          counter.bytes += chunk.length;
          yield chunk;
        }
      };

      await writeFile(sequence, Readable.from(bytes(), { objectMode: false }));
      files.push({ sequence, rows: counter.rows, bytes: counter.bytes, sha256: hash.digest('hex') });
      rowsBefore += counter.rows;
    }
  } finally {
    if (!pending?.done) await iterator.return?.();
  }
  return files;
}
