/**
 * The export's columnar fast path alone (FastRowTyper into a ColumnBatch), over the records of the CSV that
 * export-parquet.ts generates, built as csv.ts builds them: no download, no CSV reading, no Parquet. A
 * change to this stage is a few percent of the whole export, under the machine's noise end to end, so it is
 * measured here, its builds taken in turn in their own processes:
 *
 *   node dist-bench/bench/export-typer.js [--build <a checkout's dist/>] [--rows 1000000] [--from-csv]
 *
 * `--build` points at another build of chatport (e.g. of an older commit) to type with; by default this
 * checkout's. Prints the CPU ms of one pass (the mean of 3, after one to warm up). `--from-csv` measures the
 * CSV reading too: the file read from disk, parsed as the export parses its download (parseLineBatches, or
 * parseRecordBatches in a build without it) and typed into batches by openTypedBatches, as export does.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, workDir } from './lib/paths.js';

type Typer = { type(record: Record<string, string>, batch: Batch, rowNumber: number): number };
type Batch = { full: boolean; reset(): void };

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** The CSV's records, each as csv.ts makes it (one object shape, built by a compiled function). */
function readRecords(file: string): { header: string[]; records: Array<Record<string, string>> } {
  const lines = readFileSync(file, 'utf8').split('\n');
  const header = lines[0]!.split(',');
  const build = new Function('f', `return { ${header.map((n, i) => `${JSON.stringify(n)}: f[${i}]`).join(', ')} };`) as (f: string[]) => Record<string, string>;
  return { header, records: lines.slice(1).filter((l) => l !== '').map((l) => build(l.split(','))) };
}

/** The benchmark's rows all fall on 2026-11-21: a window of that day, as the nightly export has. */
const WINDOW = { column: 'created_time', sinceUs: BigInt(Date.UTC(2026, 10, 21)) * 1000n, untilUs: BigInt(Date.UTC(2026, 10, 22)) * 1000n };

type Load = (path: string) => Promise<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One pass of the CSV file through parsing and the columnar typer (no download, no Parquet); the rows written. */
async function csvPass(load: Load, file: string): Promise<number> {
  const formats = await load('formats/index.js');
  const { openTypedBatches } = await load('pipeline/export/typed-batches.js');
  const { MESSAGES_SCHEMA } = await load('pipeline/export/schemas.js');
  const parse = formats.parseLineBatches ?? formats.parseRecordBatches;
  const items = parse(createReadStream(file), { file: 'bench', format: 'csv', decimals: 'text', csv: {} });
  const rejects = { path: 'none', isWindow: false, write: () => Promise.resolve() };
  const stamp = { dataset: 'messages', date: '2026-11-21', runId: 'bench' };
  const typed = await openTypedBatches(items, { schema: MESSAGES_SCHEMA, timestampUnit: 'us', rejects, maxRejects: 0, source: 'bench', stamp, window: WINDOW, batchRows: 65_536 });
  let written = 0;
  for await (const batch of typed.rows.batches as AsyncIterable<{ length: number }>) written += batch.length;
  return written;
}

async function fromCsv(build: string, load: Load, rows: number): Promise<void> {
  const file = workDir('export-parquet', `messages-${rows}.csv`);
  await csvPass(load, file);
  const start = process.cpuUsage();
  let written = 0;
  for (let k = 0; k < 3; k++) written += await csvPass(load, file);
  const used = process.cpuUsage(start);
  if (written !== 3 * rows) throw new Error(`the typer wrote ${written / 3} of ${rows} rows`);
  process.stdout.write(`${JSON.stringify({ build, rows, stage: 'csv → batches', cpuMs: Math.round((used.user + used.system) / 3000) })}\n`);
}

async function main(): Promise<void> {
  const build = argument('--build') ?? join(ROOT, 'dist');
  const rows = Number(argument('--rows') ?? 1_000_000);
  const load: Load = (path: string) => import(pathToFileURL(join(build, path)).href);
  if (process.argv.includes('--from-csv')) return fromCsv(build, load, rows);
  const { planColumns } = await load('pipeline/export/column-plan.js');
  const { MESSAGES_SCHEMA } = await load('pipeline/export/schemas.js');
  const { FastRowTyper, WRITTEN } = await load('pipeline/export/fast-row.js');
  const { ColumnBatch } = await load('sinks/column-batch.js');
  const { header, records } = readRecords(workDir('export-parquet', `messages-${rows}.csv`));
  const plan = planColumns(MESSAGES_SCHEMA, header, 'us', 'bench');
  const typer = new FastRowTyper(plan, WINDOW) as Typer;
  const batch = new ColumnBatch(plan.schema, 65_536) as Batch;
  let written = 0;
  const pass = () => {
    for (let i = 0; i < records.length; i++) {
      if (typer.type(records[i]!, batch, i + 1) === WRITTEN) written++;
      if (batch.full) batch.reset();
    }
  };
  pass();
  const start = process.cpuUsage();
  for (let k = 0; k < 3; k++) pass();
  const used = process.cpuUsage(start);
  if (written !== 4 * records.length) throw new Error(`the fast path wrote ${written / 4} of ${records.length} rows`);
  process.stdout.write(`${JSON.stringify({ build, rows: records.length, cpuMs: Math.round((used.user + used.system) / 3000) })}\n`);
}

await main();
