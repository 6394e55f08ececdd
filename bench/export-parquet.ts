/**
 * The analytics export written as Parquet, end to end: a 1,000,000-row messages export (CSV, the
 * columns of decisions.md) downloaded over HTTP, parsed, typed against the declared schema and written as
 * Parquet zstd by `runExport`, compared in the same run with DuckDB converting the same CSV to Parquet
 * zstd (read_csv → COPY). Each runs in its own child process, so each peak RSS is its own.
 *
 *   node dist-bench/bench/export-parquet.js [--rows 1000000] [--runs 3]
 *
 * The "platform" is a small node:http server on 127.0.0.1 in the parent process (its CPU is not counted):
 * it answers the export start, the job poll (FINISHED with a file link) and serves the CSV file with
 * Range support, so chatport goes through its real client, download, parse, typing and sink code.
 * DuckDB reads the file from disk (no network, no declared schema: its own type inference), which makes
 * it the lower bound, not a like-for-like competitor.
 */
import { createReadStream, statSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMeasured } from './lib/measure.js';
import { exportCsv } from './lib/export-csv.js';
import { loadDuckDB } from './lib/duckdb.js';
import { workDir } from './lib/paths.js';
import { ratioGoal } from './lib/goals.js';
import { spread } from './lib/spread.js';

const WORK = workDir('export-parquet');

/** Just enough of the Management API for one analytics export, plus the file with Range support. */
function startPlatform(csv: string): Promise<{ url: string; server: Server }> {
  const size = statSync(csv).size;
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/vnd.chat+json', 'x-api-version': 'bench' });
      res.end(JSON.stringify(body));
    };
    const job = { id: 1, type: 'MESSAGE_ANALYTICS_EXPORT', createdTime: '2026-11-22T00:00:00Z' };
    if (req.method === 'POST' && req.url === '/analytics/messages') return json(202, { ...job, state: 'PENDING' });
    if (req.method === 'GET' && req.url === '/jobs/1') return json(200, { ...job, state: 'FINISHED', endedTime: '2026-11-22T00:00:01Z', file: `${base}/files/messages.csv` });
    if (req.method === 'GET' && req.url === '/files/messages.csv') {
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const start = m ? Number(m[1]) : 0;
      res.writeHead(m ? 206 : 200, {
        'content-type': 'text/csv',
        'content-length': String(size - start),
        'accept-ranges': 'bytes',
        ...(m ? { 'content-range': `bytes ${start}-${size - 1}/${size}` } : {}),
      });
      return void createReadStream(csv, { start }).pipe(res);
    }
    json(404, { error: 'not found' });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}

/** Child: chatport's export pipeline, as the CLI runs it (minus argv parsing). */
async function childChatport(apiUrl: string, out: string): Promise<void> {
  const { createClient } = await import('../src/api/index.js');
  const { runExport } = await import('../src/pipeline/export/index.js');
  const client = createClient({ apiUrl, auth: { kind: 'static', accessToken: 'bench-token-000000' } });
  const t0 = performance.now();
  const report = await runExport({ datasets: ['messages'], to: out, format: 'parquet', date: '2026-11-21', runId: 'bench', job: { pollIntervalMs: 10 } }, { client });
  const runMs = performance.now() - t0;
  await client.close();
  const d = report.datasets[0]!;
  process.stdout.write(JSON.stringify({ rows: d.rowsWritten, rejected: d.rowsRejected, bytes: d.bytesWritten, files: d.files.length, runMs }));
}

/** Child: DuckDB converting the same CSV file to Parquet zstd. */
async function childDuckdb(csv: string, out: string): Promise<void> {
  const { DuckDBInstance } = await loadDuckDB();
  const t0 = performance.now();
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  await connection.run(`COPY (SELECT * FROM read_csv('${csv}', header = true)) TO '${out}' (FORMAT parquet, COMPRESSION zstd)`);
  const count = await connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${out}')`);
  const runMs = performance.now() - t0;
  connection.closeSync();
  db.closeSync();
  process.stdout.write(JSON.stringify({ rows: Number(count.getRowObjects()[0]!.n), rejected: 0, bytes: (await stat(out)).size, files: 1, runMs }));
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile() && entry.name.endsWith('.parquet')) total += (await stat(join(entry.parentPath, entry.name))).size;
  return total;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const childAt = args.indexOf('--child');
  if (childAt >= 0) {
    const [kind, a, b] = args.slice(childAt + 1) as [string, string, string];
    return kind === 'chatport' ? childChatport(a, b) : childDuckdb(a, b);
  }
  const rowsAt = args.indexOf('--rows');
  const rows = rowsAt >= 0 ? Number(args[rowsAt + 1]) : 1_000_000;
  await mkdir(WORK, { recursive: true });
  const csv = await exportCsv(rows);
  const csvMb = statSync(csv).size / 1024 ** 2;
  const runsAt = args.indexOf('--runs');
  const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
  const platform = await startPlatform(csv);
  const self = fileURLToPath(import.meta.url);
  type Result = { name: string; run: number; wallMs: number; runMs: number; cpuMs: number; maxRssMb: number; rows: number; outMb: number };
  const results: Result[] = [];
  const ratios: number[] = [];
  try {
    // Pairs taken in turn: chatport, then DuckDB, run after run.
    for (let run = 1; run <= runs; run++) {
      const chatportOut = join(WORK, 'chatport-out');
      await rm(chatportOut, { recursive: true, force: true });
      const c = await runMeasured(self, ['--child', 'chatport', platform.url, chatportOut], { CHATPORT_LOG_LEVEL: 'warn' });
      if (c.code !== 0) throw new Error(`chatport child failed:\n${c.stderrTail}`);
      const cr = JSON.parse(c.stdout) as { rows: number; rejected: number; runMs: number };
      if (cr.rows !== rows || cr.rejected !== 0) throw new Error(`chatport wrote ${cr.rows} rows (${cr.rejected} rejected), expected ${rows}`);
      results.push({ name: 'chatport export (HTTP → typed → Parquet zstd)', run, wallMs: c.wallMs, runMs: cr.runMs, cpuMs: c.cpuMs, maxRssMb: c.maxRssMb, rows: cr.rows, outMb: (await folderBytes(chatportOut)) / 1024 ** 2 });

      const duckOut = join(WORK, 'duckdb.parquet');
      await rm(duckOut, { force: true });
      const d = await runMeasured(self, ['--child', 'duckdb', csv, duckOut], {});
      if (d.code !== 0) throw new Error(`duckdb child failed:\n${d.stderrTail}`);
      const dr = JSON.parse(d.stdout) as { rows: number; runMs: number; bytes: number };
      results.push({ name: 'DuckDB read_csv → Parquet zstd (file on disk)', run, wallMs: d.wallMs, runMs: dr.runMs, cpuMs: d.cpuMs, maxRssMb: d.maxRssMb, rows: dr.rows, outMb: dr.bytes / 1024 ** 2 });
      ratios.push(c.cpuMs / d.cpuMs);
    }
  } finally {
    platform.server.closeAllConnections();
    platform.server.close();
  }

  const header = ['', 'run', 'rows', 'process wall s', 'run s', 'CPU s', 'peak RSS MB', 'Parquet MB'];
  const table = results.map((r) => [r.name, String(r.run), r.rows.toLocaleString('en'), (r.wallMs / 1000).toFixed(1), (r.runMs / 1000).toFixed(1), (r.cpuMs / 1000).toFixed(1), r.maxRssMb.toFixed(0), r.outMb.toFixed(1)]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  process.stdout.write(`Input: ${rows.toLocaleString('en')} rows, ${csvMb.toFixed(0)} MB of CSV; Node ${process.version}; ${new Date().toISOString()}\n`);
  process.stdout.write(`${[line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...table.map(line)].join('\n')}\n`);
  process.stdout.write('"process wall" includes process start (module loading); "run" is the export alone.\n');
  const r = spread(ratios, 2);
  process.stdout.write(`chatport CPU / DuckDB CPU, min / median / max: ${r.text}\n`);
  ratioGoal(`export CPU vs DuckDB (${rows.toLocaleString('en')} rows, CSV → Parquet zstd)`, 1.5, r, runs);
}

await main();
