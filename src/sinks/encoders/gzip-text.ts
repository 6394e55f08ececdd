/** Shared by the NDJSON and CSV encoders: rows → text lines → gzip, in ~64 KB pieces. */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Row } from '../schema.js';

const PIECE_CHARS = 64 * 1024;

async function* textPieces(rows: AsyncIterable<Row>, firstRowNumber: number, header: string | undefined, line: (row: Row, rowNumber: number) => string) {
  let parts: string[] = header === undefined ? [] : [header];
  let size = header?.length ?? 0;
  let rowNumber = firstRowNumber;
  for await (const row of rows) {
    const text = line(row, rowNumber++);
    parts.push(text);
    size += text.length;
    if (size >= PIECE_CHARS) {
      yield Buffer.from(parts.join(''));
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield Buffer.from(parts.join(''));
}

/** gzip of the lines; errors from the rows come out of the returned iterable. */
export async function* gzipLines(
  rows: AsyncIterable<Row>,
  firstRowNumber: number,
  level: number,
  header: string | undefined,
  line: (row: Row, rowNumber: number) => string,
): AsyncGenerator<Uint8Array> {
  const text = Readable.from(textPieces(rows, firstRowNumber, header, line));
  const gzip = createGzip({ level });
  const pumping = pipeline(text, gzip);
  // The pipeline's own rejection is the same error the loop below sees; keep it from going unhandled.
  pumping.catch(() => undefined);
  try {
    for await (const chunk of gzip) yield chunk as Buffer;
    await pumping;
  } finally {
    text.destroy();
    gzip.destroy();
  }
}
