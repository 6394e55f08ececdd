/**
 * The messages analytics export's CSV as the platform serves it (the columns of decisions.md), with the rows
 * of parquet-rows.ts: generated once per row count into the export benchmark's folder, then reused.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { generateBenchRows, type BenchRow } from '../parquet-rows.js';
import { workDir } from './paths.js';

const HEADER = 'id,type,channelId,channelName,userId,username,bodyLength,repliesCount,reactionsCount,groupTag,createdTime,lastEditedTime\n';

function csvLine(r: BenchRow): string {
  const iso = (ms: number | null) => (ms === null ? '' : new Date(ms).toISOString());
  return `${r.id},${r.type},${r.channelId},${r.channelName ?? ''},${r.userId ?? ''},${r.username ?? ''},${r.bodyLength},${r.repliesCount},${r.reactionsCount},${r.groupTag ?? ''},${iso(r.createdTime)},${iso(r.lastEditedTime)}\n`;
}

async function writeCsv(rows: number, file: string): Promise<void> {
  const chunks = function* () {
    yield HEADER;
    let batch = '';
    let n = 0;
    for (const r of generateBenchRows(rows)) {
      batch += csvLine(r);
      if (++n % 10_000 === 0) {
        yield batch;
        batch = '';
      }
    }
    yield batch;
  };
  await pipeline(Readable.from(chunks()), createWriteStream(`${file}.part`));
  await rename(`${file}.part`, file);
}

/** The path of the `rows`-row export CSV, written first if this machine has none yet. */
export async function exportCsv(rows: number): Promise<string> {
  const dir = workDir('export-parquet');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `messages-${rows}.csv`);
  if (!existsSync(file)) {
    process.stderr.write(`generating ${rows} rows of CSV…\n`);
    await writeCsv(rows, file);
  }
  return file;
}
