/**
 * Parquet writer comparison: N generated rows × 13 columns (the messages analytics table plus a boolean),
 * streamed from an iterator into one Parquet file, each candidate in its own child process so peak RSS is
 * its own. Figures and the choice: docs/parquet.md.
 *
 *   node dist-bench/bench/parquet-writer.js [--rows 1000000] [--candidates chatport,hyparquet-writer,…]
 *
 * Candidates:
 *   chatport          the sink's encoder: Arrow batches from typed arrays → parquet-wasm, zstd
 *   hyparquet-writer  pure JS, parquetWriteRows with row groups of 262,144; snappy (its zstd needs Node 22)
 *   duckdb-appender   @duckdb/node-api appender into a table, then COPY … (COMPRESSION zstd)
 *   duckdb-csv        baseline: DuckDB converting a CSV of the same rows to Parquet zstd (CSV made untimed)
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createFileEncoder } from '../src/sinks/index.js';
import type { Row, TableSchema } from '../src/sinks/index.js';
import { generateBenchRows, type BenchRow } from './parquet-rows.js';
import { loadDuckDB } from './lib/duckdb.js';
import { workDir } from './lib/paths.js';
import { spread } from './lib/spread.js';

const CANDIDATES = ['chatport', 'hyparquet-writer', 'duckdb-appender', 'duckdb-csv'] as const;
type Candidate = (typeof CANDIDATES)[number];

const schema: TableSchema = {
  columns: [
    { name: 'id', type: 'int64', nullable: false },
    { name: 'type', type: 'string' },
    { name: 'channelId', type: 'int64' },
    { name: 'channelName', type: 'string' },
    { name: 'userId', type: 'int64' },
    { name: 'username', type: 'string' },
    { name: 'bodyLength', type: 'int32' },
    { name: 'repliesCount', type: 'int32' },
    { name: 'reactionsCount', type: 'int32' },
    { name: 'groupTag', type: 'string' },
    { name: 'createdTime', type: 'timestamp_ms' },
    { name: 'lastEditedTime', type: 'timestamp_ms' },
    { name: 'isSystem', type: 'boolean' },
  ],
};

async function* asyncRows(count: number): AsyncGenerator<Row> {
  for (const row of generateBenchRows(count)) yield row as unknown as Row;
}

async function runChatport(rows: number, file: string): Promise<void> {
  const encoder = await createFileEncoder('parquet', schema);
  await pipeline(Readable.from(encoder.encode(asyncRows(rows), 1)), createWriteStream(file));
}

async function runHyparquet(rows: number, file: string): Promise<void> {
  const { parquetWriteRows, fileWriter } = await import('hyparquet-writer');
  const asDates = function* () {
    for (const r of generateBenchRows(rows)) {
      yield { ...r, createdTime: new Date(r.createdTime), lastEditedTime: r.lastEditedTime === null ? null : new Date(r.lastEditedTime) };
    }
  };
  const types: Record<string, 'INT64' | 'STRING' | 'INT32' | 'TIMESTAMP' | 'BOOLEAN'> = {
    int64: 'INT64', string: 'STRING', int32: 'INT32', timestamp_ms: 'TIMESTAMP', boolean: 'BOOLEAN',
  };
  await parquetWriteRows({
    writer: fileWriter(file),
    rows: asDates(),
    rowGroupSize: 262_144,
    columns: schema.columns.map((c) => ({ name: c.name, type: types[c.type]! })),
  });
}

const DUCK_TABLE = `CREATE TABLE t (id BIGINT, type VARCHAR, channelId BIGINT, channelName VARCHAR, userId BIGINT,
  username VARCHAR, bodyLength INTEGER, repliesCount INTEGER, reactionsCount INTEGER, groupTag VARCHAR,
  createdTime TIMESTAMPTZ, lastEditedTime TIMESTAMPTZ, isSystem BOOLEAN)`;

async function runDuckAppender(rows: number, file: string): Promise<void> {
  const { DuckDBInstance, DuckDBTimestampTZValue } = await loadDuckDB();
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  await connection.run(DUCK_TABLE);
  const a = await connection.createAppender('t');
  const text = (v: string | null) => (v === null ? a.appendNull() : a.appendVarchar(v));
  const big = (v: bigint | null) => (v === null ? a.appendNull() : a.appendBigInt(v));
  const ts = (v: number | null) => (v === null ? a.appendNull() : a.appendTimestampTZ(new DuckDBTimestampTZValue(BigInt(v) * 1000n)));
  for (const r of generateBenchRows(rows)) {
    big(r.id); text(r.type); big(r.channelId); text(r.channelName); big(r.userId); text(r.username);
    a.appendInteger(r.bodyLength); a.appendInteger(r.repliesCount); a.appendInteger(r.reactionsCount); text(r.groupTag);
    ts(r.createdTime); ts(r.lastEditedTime); a.appendBoolean(r.isSystem);
    a.endRow();
  }
  a.closeSync();
  await connection.run(`COPY t TO '${file}' (FORMAT parquet, COMPRESSION zstd)`);
  connection.closeSync();
}

function csvLine(r: BenchRow): string {
  const v = (x: unknown) => (x === null ? '' : x instanceof Date ? x.toISOString() : String(x));
  return [r.id, r.type, r.channelId, r.channelName, r.userId, r.username, r.bodyLength, r.repliesCount, r.reactionsCount, r.groupTag,
    new Date(r.createdTime), r.lastEditedTime === null ? null : new Date(r.lastEditedTime), r.isSystem].map(v).join(',');
}

async function writeCsv(rows: number, file: string): Promise<void> {
  const lines = function* () {
    yield 'id,type,channelId,channelName,userId,username,bodyLength,repliesCount,reactionsCount,groupTag,createdTime,lastEditedTime,isSystem\n';
    let batch: string[] = [];
    for (const r of generateBenchRows(rows)) {
      batch.push(`${csvLine(r)}\n`);
      if (batch.length === 10_000) {
        yield batch.join('');
        batch = [];
      }
    }
    yield batch.join('');
  };
  await pipeline(Readable.from(lines()), createWriteStream(file));
}

async function runDuckCsv(_rows: number, file: string, csv: string): Promise<void> {
  const { DuckDBInstance } = await loadDuckDB();
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  await connection.run(`COPY (SELECT * FROM read_csv('${csv}', header = true)) TO '${file}' (FORMAT parquet, COMPRESSION zstd)`);
  connection.closeSync();
}

interface Measurement { candidate: Candidate; rows: number; wallMs: number; cpuMs: number; peakRssMb: number; bytes: number }

async function child(candidate: Candidate, rows: number, dir: string): Promise<void> {
  const file = join(dir, `${candidate}.parquet`);
  const csv = join(dir, 'input.csv');
  if (candidate === 'duckdb-csv') await writeCsv(rows, csv);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (candidate === 'chatport') await runChatport(rows, file);
  else if (candidate === 'hyparquet-writer') await runHyparquet(rows, file);
  else if (candidate === 'duckdb-appender') await runDuckAppender(rows, file);
  else await runDuckCsv(rows, file, csv);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const result: Measurement = {
    candidate, rows, wallMs: Math.round(wallMs), cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    // Peak of the whole process (CSV generation included for the baseline, which only lifts its figure).
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), bytes: (await stat(file)).size,
  };
  await writeFile(join(dir, `${candidate}.json`), JSON.stringify(result));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const dir = workDir('parquet-writer');
  const childCandidate = option('--child') as Candidate | undefined;
  const rows = Number(option('--rows') ?? 1_000_000);
  if (childCandidate) return child(childCandidate, rows, dir);

  const candidates = (option('--candidates')?.split(',') ?? [...CANDIDATES]) as Candidate[];
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const runsAt = args.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 1;
  const results: Measurement[] = [];
  // Candidates taken in turn, run after run (`--runs N`), each in its own process.
  for (let run = 0; run < runs; run++)
    for (const candidate of candidates) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', candidate, '--rows', String(rows)], { stdio: 'inherit' });
      if (child.status !== 0) throw new Error(`${candidate} failed with exit code ${child.status}`);
      const { readFile } = await import('node:fs/promises');
      results.push(JSON.parse(await readFile(join(dir, `${candidate}.json`), 'utf8')) as Measurement);
    }
  console.log(`\n| writer | rows | wall s | CPU s | peak RSS MB | file MB |\n|---|---:|---:|---:|---:|---:|`);
  for (const r of results) {
    console.log(`| ${r.candidate} | ${r.rows.toLocaleString('en')} | ${(r.wallMs / 1000).toFixed(1)} | ${(r.cpuMs / 1000).toFixed(1)} | ${r.peakRssMb} | ${(r.bytes / 1e6).toFixed(1)} |`);
  }
  for (const candidate of candidates) console.log(`${candidate}: CPU s min / median / max of ${runs}: ${spread(results.filter((r) => r.candidate === candidate).map((r) => r.cpuMs / 1000)).text}`);
  await rm(dir, { recursive: true, force: true });
}

await main();
