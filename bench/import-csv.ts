/**
 * Import benchmark (issue 4): N generated messages in CSV imported into the sandbox through `chatport
 * import`; records/s, CPU seconds and peak RSS of the chatport process, and its CPU per record against a
 * baseline that only parses the same CSV with csv-parse and serializes each record to JSON.
 *
 *   node --import tsx bench/import-csv.ts --messages 1000000 --messages 5000000
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generatedPipelineYaml } from '../fixtures/csv-generated/pipeline.js';
import { formatQuarters, runMeasured, type Measured } from './lib/measure.js';
import { startSandboxProcess } from './lib/sandbox-process.js';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const BASELINE = fileURLToPath(new URL('./lib/baseline-csv.mjs', import.meta.url));
const WORK = fileURLToPath(new URL('./.work/', import.meta.url));

const USERS = 1000;
const CHANNELS = 100;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima', 'émoji 🎉', 'مرحبا'];

async function writeLines(path: string, header: string, count: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  let batch = '';
  for (let i = 0; i < count; i++) {
    batch += `${line(i)}\n`;
    if (batch.length > 1 << 16) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(batch);
  await once(out, 'finish');
}

export async function generate(dir: string, messages: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeLines(join(dir, 'users.csv'), 'id,username,display', USERS, (i) => `u${i},user${i},User ${i}`);
  await writeLines(join(dir, 'channels.csv'), 'key,name,members', CHANNELS, (c) => `c${c},chan-${c},${Array.from({ length: 20 }, (_, k) => `user${(c * 7 + k) % USERS}`).join('|')}`);
  await writeLines(join(dir, 'messages.csv'), 'id,channel,author,sent_at,text', messages, (i) => {
    const c = i % CHANNELS;
    const words = Array.from({ length: 6 + (i % 9) }, (_, k) => WORDS[(i + k * 3) % WORDS.length]).join(' ');
    return `m${i},c${c},user${(c * 7 + (i % 20)) % USERS},${new Date(1_700_000_000_000 + i * 1000).toISOString()},"${words}, number ${i}"`;
  });
  await writeFile(
    join(dir, 'pipeline.yaml'),
    generatedPipelineYaml({
      name: `bench-${messages}`,
      options: process.env.BENCH_OPTIONS ?? '{ chunkRecords: 5000, chunkBytes: 4194304, concurrency: 4 }',
      messageProperties: process.env.BENCH_MAPPING === 'plain' ? '{ sourceId: id }' : '{ source: { id: id, sentAt: { field: sent_at, type: date } } }',
    }),
  );
}

export interface ImportBenchResult {
  messages: number;
  chatport: Measured;
  /** `chatport verify` of the same pipeline afterwards: what import's default verification costs on top. */
  verify: Measured;
  baseline: Measured;
  recordsPerSecond: number;
  cpuUsPerRecord: number;
  verifyCpuUsPerRecord: number;
  baselineCpuUsPerRecord: number;
  ratio: number;
}

export async function benchImport(messages: number): Promise<ImportBenchResult> {
  const dir = join(WORK, `import-${messages}`);
  await rm(dir, { recursive: true, force: true });
  process.stderr.write(`import bench: generating ${messages.toLocaleString('en-US')} messages…\n`);
  await generate(dir, messages);
  const sandbox = await startSandboxProcess();
  try {
    process.stderr.write('import bench: importing…\n');
    const env = { CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn' };
    // The import alone (its default verification is measured apart, below, so the two costs stay visible).
    const chatport = await runMeasured(CLI, ['import', join(dir, 'pipeline.yaml'), '--state', join(dir, 'state'), '--json', '--no-verify'], env);
    if (chatport.code !== 0) throw new Error(`import exited ${chatport.code}: ${chatport.stderrTail}`);
    process.stderr.write('import bench: verifying…\n');
    const verify = await runMeasured(CLI, ['verify', join(dir, 'pipeline.yaml'), '--state', join(dir, 'state'), '--json'], env);
    if (verify.code !== 0) throw new Error(`verify exited ${verify.code}: ${verify.stderrTail}`);
    const report = JSON.parse(chatport.stdout) as { totals: { read: number; imported: number; balanced: boolean } };
    if (report.totals.imported !== messages + USERS + CHANNELS || !report.totals.balanced) throw new Error(`unexpected totals ${JSON.stringify(report.totals)}`);
    process.stderr.write('import bench: baseline…\n');
    const baseline = await runMeasured(BASELINE, [join(dir, 'messages.csv')]);
    const records = report.totals.read;
    const cpuUsPerRecord = (chatport.cpuMs * 1000) / records;
    const baselineCpuUsPerRecord = (baseline.cpuMs * 1000) / messages;
    return {
      messages, chatport, verify, baseline,
      recordsPerSecond: records / (chatport.wallMs / 1000),
      cpuUsPerRecord, verifyCpuUsPerRecord: (verify.cpuMs * 1000) / records, baselineCpuUsPerRecord, ratio: cpuUsPerRecord / baselineCpuUsPerRecord,
    };
  } finally {
    await sandbox.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatImportResults(results: ImportBenchResult[]): string {
  const rows = results.map((r) =>
    `| ${r.messages.toLocaleString('en-US')} | ${(r.chatport.wallMs / 1000).toFixed(1)} | ${Math.round(r.recordsPerSecond).toLocaleString('en-US')} | ${(r.chatport.cpuMs / 1000).toFixed(1)} | ${r.chatport.maxRssMb.toFixed(0)} | ${formatQuarters(r.chatport.rssByQuarterMb)} | ${r.cpuUsPerRecord.toFixed(2)} | ${r.baselineCpuUsPerRecord.toFixed(2)} | ${r.ratio.toFixed(2)}× | ${r.verifyCpuUsPerRecord.toFixed(2)} | ${r.verify.maxRssMb.toFixed(0)} |`);
  return ['| messages | wall s | records/s | CPU s | peak RSS MB | peak RSS by quarter of the run, MB | CPU µs/record | baseline µs/record | ratio | verify CPU µs/record | verify peak RSS MB |', '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|', ...rows].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: 'string', multiple: true, default: ['1000000'] } } });
  const results: ImportBenchResult[] = [];
  for (const n of values.messages!) results.push(await benchImport(Number(n)));
  process.stdout.write(`${formatImportResults(results)}\n`);
  if (results.length > 1) {
    const first = results[0]!.chatport.maxRssMb;
    const last = results.at(-1)!.chatport.maxRssMb;
    process.stdout.write(`peak RSS ${results.at(-1)!.messages.toLocaleString('en-US')} vs ${results[0]!.messages.toLocaleString('en-US')}: ${(((last - first) / first) * 100).toFixed(1)}%\n`);
  }
}
