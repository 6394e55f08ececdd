/**
 * Reads export output back with readers independent of the writers: hyparquet (pure JS) for Parquet,
 * zlib + JSON.parse for NDJSON.gz, zlib + csv-parse for CSV.gz. Values come back in one common shape:
 * int64 as bigint, timestamps as epoch microseconds (bigint), so all three formats compare alike.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import { readParquet } from '../sinks/parquet-reader.js';
import type { ExportManifest } from '../../src/sinks/index.js';

export function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(root, path));
    }
  };
  walk(root);
  return out.sort();
}

export function readManifest(root: string, dataset: string, date: string): ExportManifest {
  return JSON.parse(readFileSync(join(root, '_manifests', dataset, `dt=${date}`, 'manifest.json'), 'utf8')) as ExportManifest;
}

/** hyparquet, as the sinks' tests read Parquet (one reader for both). */
export const readParquetFile = readParquet;

const INT64 = new Set(['id', 'channel_id', 'user_id', 'replies_count', 'reactions_count', 'channels_count', 'messages_count']);
const TIMESTAMPS = new Set(['created_time', 'last_edited_time', 'last_message_time']);

/** Text formats carry types as text: bring them to the Parquet reader's shape. */
function normalizeTextRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v === null || v === '') out[k] = null;
    else if (INT64.has(k)) out[k] = BigInt(String(v));
    else if (TIMESTAMPS.has(k)) out[k] = BigInt(Date.parse(String(v))) * 1000n + BigInt(/\.\d{3}(\d{3})Z$/.exec(String(v))?.[1] ?? '0');
    else if (k === 'body_length') out[k] = Number(v);
    else if (k === 'is_guest') out[k] = v === true || v === 'true';
    else out[k] = v;
  }
  return out;
}

/**
 * JSON.parse reads an integer through a double, so one beyond 2^53 would come back rounded: such tokens
 * (outside strings) are quoted first, and normalizeTextRow reads them as bigints.
 */
const quoteLongIntegers = (line: string) => line.replace(/"(?:[^"\\]|\\.)*"|-?\d{16,}(?![.eE\d])/g, (token) => (token.startsWith('"') ? token : `"${token}"`));

/** Every row of one data file, in the common shape. */
export async function readDataFile(path: string): Promise<Record<string, unknown>[]> {
  const bytes = readFileSync(path);
  if (path.endsWith('.parquet')) return (await readParquetFile(bytes)).rows;
  const text = gunzipSync(bytes).toString('utf8');
  if (path.endsWith('.ndjson.gz'))
    return text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => normalizeTextRow(JSON.parse(quoteLongIntegers(l)) as Record<string, unknown>));
  if (path.endsWith('.csv.gz')) return (parseCsv(text, { columns: true }) as Record<string, unknown>[]).map(normalizeTextRow);
  throw new Error(`unknown data file ${path}`);
}

/** All rows of one dataset and date, from every data file in its folder. */
export async function readDataset(root: string, dataset: string, date: string): Promise<Record<string, unknown>[]> {
  const folder = join(root, dataset, `dt=${date}`);
  const rows: Record<string, unknown>[] = [];
  for (const name of readdirSync(folder).filter((n) => n.startsWith('part-')).sort()) rows.push(...(await readDataFile(join(folder, name))));
  return rows;
}
