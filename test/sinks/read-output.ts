/** Decodes written output files back into rows, with readers independent of the writers. */
import { parse } from 'csv-parse/sync';
import { gunzipSync } from 'node:zlib';
import type { OutputFormat } from '../../src/sinks/index.js';
import { readParquet } from './parquet-reader.js';

/** Rows of one file as comparable values: for text formats the raw JSON / CSV values. */
export async function decodeFile(format: OutputFormat, bytes: Buffer): Promise<unknown[]> {
  if (format === 'parquet') return (await readParquet(bytes)).rows;
  const text = gunzipSync(bytes).toString();
  if (format === 'ndjson') {
    // JSON.parse rounds int64 past 2^53 through a double; the id is taken from the text to stay exact.
    return text.split('\n').filter(Boolean).map((line) => ({ ...(JSON.parse(line) as object), id: /^\{"id":(-?\d+)/.exec(line)?.[1] }));
  }
  const [, ...records] = parse(text) as string[][];
  return records;
}

/** The `id` column of decoded rows, as strings, in order: enough to check nothing is lost or doubled. */
export function idsOf(format: OutputFormat, rows: unknown[]): string[] {
  if (format === 'csv') return (rows as string[][]).map((r) => r[0]!);
  return (rows as Array<{ id: unknown }>).map((r) => String(r.id));
}
