/**
 * The export's columnar fast path alone, over the CSV that export-parquet.ts generates: no download and no
 * Parquet. A change to this stage is a few percent of the whole export, under the machine's noise end to end,
 * so it is measured here. Each measurement is a child process of its own (one warm-up pass, then the CPU of
 * three, averaged); with `--against`, the two builds are taken in turn, run after run, and each pair's ratio
 * is printed with min / median / max:
 *
 *   node dist-bench/bench/export-typer.js [--against <another checkout's dist/>] [--runs 5] [--rows 1000000] [--from-csv]
 *
 * Without `--from-csv` the records are built beforehand, as csv.ts builds them, and only FastRowTyper.type
 * is timed. `--from-csv` times the CSV reading too: the file parsed as the export parses its download
 * (parseLineBatches, or parseRecordBatches in a build without it) and typed by openTypedBatches.
 */
import { execFile } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { exportCsv } from './lib/export-csv.js';
import { ROOT } from './lib/paths.js';
import { spread } from './lib/spread.js';

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

async function fromCsv(build: string, load: Load, file: string, rows: number): Promise<void> {
  await csvPass(load, file);
  const start = process.cpuUsage();
  let written = 0;
  for (let k = 0; k < 3; k++) written += await csvPass(load, file);
  const used = process.cpuUsage(start);
  if (written !== 3 * rows) throw new Error(`the typer wrote ${written / 3} of ${rows} rows`);
  process.stdout.write(`${JSON.stringify({ build, rows, stage: 'csv → batches', cpuMs: Math.round((used.user + used.system) / 3000) })}\n`);
}

/** One measurement, in this process: the CPU ms of one pass over `file` with the build at `build`. */
async function child(build: string, file: string, rows: number, fromCsvToo: boolean): Promise<void> {
  const load: Load = (path: string) => import(pathToFileURL(join(build, path)).href);
  if (fromCsvToo) return fromCsv(build, load, file, rows);
  const { planColumns } = await load('pipeline/export/column-plan.js');
  const { MESSAGES_SCHEMA } = await load('pipeline/export/schemas.js');
  const { FastRowTyper, WRITTEN } = await load('pipeline/export/fast-row.js');
  const { ColumnBatch } = await load('sinks/column-batch.js');
  const { header, records } = readRecords(file);
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

const run = promisify(execFile);

/** One child's measurement of `build`, its CPU ms. */
async function measure(build: string, file: string, rows: number, fromCsvToo: boolean): Promise<number> {
  const args = [fileURLToPath(import.meta.url), '--child', build, file, String(rows), ...(fromCsvToo ? ['--from-csv'] : [])];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
  return (JSON.parse(stdout) as { cpuMs: number }).cpuMs;
}

async function main(): Promise<void> {
  const childAt = process.argv.indexOf('--child');
  if (childAt >= 0) {
    const [build, file, rows] = process.argv.slice(childAt + 1);
    return child(build!, file!, Number(rows), process.argv.includes('--from-csv'));
  }
  const rows = Number(argument('--rows') ?? 1_000_000);
  const runs = Number(argument('--runs') ?? 5);
  const fromCsvToo = process.argv.includes('--from-csv');
  const file = await exportCsv(rows);
  const builds = [join(ROOT, 'dist'), ...(argument('--against') === undefined ? [] : [argument('--against')!])];
  const cpu: number[][] = builds.map(() => []);
  process.stdout.write(`| run | ${builds.map((b) => `${b} CPU ms`).join(' | ')} |${builds.length > 1 ? ' ratio |' : ''}\n`);
  for (let i = 1; i <= runs; i++) {
    for (let b = 0; b < builds.length; b++) cpu[b]!.push(await measure(builds[b]!, file, rows, fromCsvToo));
    const ratio = builds.length > 1 ? ` ${(cpu[0]![i - 1]! / cpu[1]![i - 1]!).toFixed(2)} |` : '';
    process.stdout.write(`| ${i} | ${cpu.map((c) => c[i - 1]).join(' | ')} |${ratio}\n`);
  }
  const stage = fromCsvToo ? 'CSV file → typed batches' : 'records → typed batches';
  builds.forEach((b, k) => process.stdout.write(`${stage}, ${b}: CPU ms per pass, min / median / max: ${spread(cpu[k]!, 0).text}\n`));
  if (builds.length > 1) process.stdout.write(`this build / ${builds[1]}, per pair, min / median / max: ${spread(cpu[0]!.map((c, k) => c / cpu[1]![k]!), 2).text}\n`);
}

await main();
