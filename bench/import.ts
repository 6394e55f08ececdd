/**
 * Import benchmark (issues 4 and 12): generated messages imported into the sandbox by `chatport import`
 * (built CLI, its own process; the sandbox in another).
 *
 * - CPU: for each source format, chatport's CPU per record against that format's floor (bench/lib/floor-*.mjs),
 *   taken in pairs, run after run, with min / median / max; and the sandbox's CPU per imported item against
 *   chatport's. Beside them, the import's reader alone on the same file (bench/lib/reader-alone.mjs): what the
 *   source format costs of the import, the rest being the same for every format.
 * - Memory: chatport's peak RSS importing CSV at each of `--memory-sizes`, and the peak RSS of a sandbox
 *   started with `--data` (as a large rehearsal runs it) once it holds them.
 *
 *   node dist-bench/bench/import.js [--messages 1000000] [--formats csv,ndjson,json] [--runs 3]
 *                                   [--memory-sizes 1000000,5000000,10000000]
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ratioGoal, reportGoal } from './lib/goals.js';
import { CHANNELS, MESSAGE_FILE, USERS, generate, type InputFormat } from './lib/import-inputs.js';
import { formatQuarters, runMeasured, type Measured } from './lib/measure.js';
import { CLI, benchLib, workDir } from './lib/paths.js';
import { cpuMsOf, peakRssMbOf } from './lib/proc-usage.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { spread } from './lib/spread.js';

const FLOOR: Record<InputFormat, string> = { csv: 'floor-csv-array.mjs', ndjson: 'floor-ndjson.mjs', json: 'floor-json-array.mjs' };
const CPU_GOAL = 1.3;
const SANDBOX_SHARE_GOAL = 1 / 3;
const RSS_GOAL_MB = 200;
const RSS_SPREAD_GOAL = 0.1;
const SANDBOX_RSS_GOAL_MB = 2048;
const SANDBOX_RSS_GOAL_MESSAGES = 10_000_000;

interface ImportRun {
  chatport: Measured;
  records: number;
  sandboxCpuMs: number;
  sandboxPeakRssMb: number;
}

/** One `chatport import --no-verify` into a fresh sandbox process, with the sandbox's CPU and memory. */
async function importOnce(dir: string, messages: number, sandboxArgs: string[] = []): Promise<ImportRun> {
  await rm(join(dir, 'state'), { recursive: true, force: true });
  const sandbox = await startSandboxProcess(sandboxArgs);
  try {
    const env = { CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn' };
    const sandboxCpu0 = cpuMsOf(sandbox.child.pid!);
    const chatport = await runMeasured(CLI, ['import', join(dir, 'pipeline.yaml'), '--state', join(dir, 'state'), '--json', '--no-verify'], env);
    const sandboxCpuMs = cpuMsOf(sandbox.child.pid!) - sandboxCpu0;
    if (chatport.code !== 0) throw new Error(`import exited ${chatport.code}: ${chatport.stderrTail}`);
    const report = JSON.parse(chatport.stdout) as { totals: { read: number; imported: number; balanced: boolean } };
    if (report.totals.imported !== messages + USERS + CHANNELS || !report.totals.balanced) throw new Error(`unexpected totals ${JSON.stringify(report.totals)}`);
    return { chatport, records: report.totals.read, sandboxCpuMs, sandboxPeakRssMb: peakRssMbOf(sandbox.child.pid!) };
  } finally {
    await sandbox.stop();
  }
}

const usPerRecord = (cpuMs: number, records: number) => (cpuMs * 1000) / records;

/** Chatport and the format's floor, in pairs run after run, on the same generated input. */
async function cpuPairs(format: InputFormat, messages: number, runs: number): Promise<void> {
  const dir = workDir(`import-${format}-${messages}`);
  await rm(dir, { recursive: true, force: true });
  process.stderr.write(`import bench: generating ${messages.toLocaleString('en-US')} messages as ${format}…\n`);
  await generate(dir, messages, format);
  const rows: string[] = [];
  const ratios: number[] = [];
  const shares: number[] = [];
  const readerRatios: number[] = [];
  /** The import without its reader, against the floor: the ratio a reader costing nothing would leave. */
  const restRatios: number[] = [];
  for (let run = 1; run <= runs; run++) {
    process.stderr.write(`import bench: ${format} run ${run} of ${runs}…\n`);
    const imported = await importOnce(dir, messages);
    const floor = await runMeasured(benchLib(FLOOR[format]), [join(dir, MESSAGE_FILE[format])]);
    if (floor.code !== 0) throw new Error(`floor exited ${floor.code}: ${floor.stderrTail}`);
    const reader = await runMeasured(benchLib('reader-alone.mjs'), [join(dir, MESSAGE_FILE[format]), format]);
    if (reader.code !== 0) throw new Error(`reader exited ${reader.code}: ${reader.stderrTail}`);
    const chatportUs = usPerRecord(imported.chatport.cpuMs, imported.records);
    const floorUs = usPerRecord(floor.cpuMs, messages);
    const sandboxUs = usPerRecord(imported.sandboxCpuMs, imported.records);
    const readerUs = usPerRecord(reader.cpuMs, messages);
    readerRatios.push(readerUs / floorUs);
    restRatios.push((chatportUs - readerUs) / floorUs);
    ratios.push(chatportUs / floorUs);
    shares.push(sandboxUs / chatportUs);
    rows.push(`| ${run} | ${(imported.chatport.wallMs / 1000).toFixed(1)} | ${Math.round(imported.records / (imported.chatport.wallMs / 1000)).toLocaleString('en-US')} | ${chatportUs.toFixed(2)} | ${floorUs.toFixed(2)} | ${(chatportUs / floorUs).toFixed(2)}× | ${readerUs.toFixed(2)} | ${imported.chatport.maxRssMb.toFixed(0)} | ${sandboxUs.toFixed(2)} | ${(sandboxUs / chatportUs).toFixed(2)} |`);
  }
  await rm(dir, { recursive: true, force: true });
  console.log(`\n### ${format}: ${messages.toLocaleString('en-US')} messages, chatport then floor then its reader alone, ${runs} runs\n`);
  console.log('| run | wall s | records/s | chatport CPU µs/record | floor CPU µs/record | ratio | reader alone CPU µs/record | chatport peak RSS MB | sandbox CPU µs/item | sandbox / chatport |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  const r = spread(ratios, 2);
  const s = spread(shares, 2);
  console.log(`\nratio min / median / max: ${r.text}; reader alone / floor: ${spread(readerRatios, 2).text}; the import less its reader / floor: ${spread(restRatios, 2).text}; sandbox share: ${s.text}`);
  ratioGoal(`${format} import CPU per record vs its floor`, CPU_GOAL, r, runs);
  ratioGoal(`sandbox CPU per item vs chatport's (${format})`, SANDBOX_SHARE_GOAL, s, runs);
}

/** Chatport's peak RSS importing CSV at each size, and the sandbox's once it holds them all. */
async function memoryBySize(sizes: number[]): Promise<void> {
  const peaks: number[] = [];
  console.log('\n### memory: CSV import at each size\n');
  console.log('| messages | wall s | chatport CPU µs/record | chatport peak RSS MB | by quarter of the run, MB | most old generation after a full GC, MB | sandbox (--data) peak RSS MB |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  let sandboxAtLargest = 0;
  for (const messages of sizes) {
    const dir = workDir(`import-memory-${messages}`);
    await rm(dir, { recursive: true, force: true });
    process.stderr.write(`import bench: generating ${messages.toLocaleString('en-US')} messages for the memory run…\n`);
    await generate(dir, messages, 'csv');
    // The sandbox as a large rehearsal would run it: its state on disk (`--data`), messages' texts there too.
    const run = await importOnce(dir, messages, ['--data', join(dir, 'sandbox-data')]);
    await rm(dir, { recursive: true, force: true });
    peaks.push(run.chatport.maxRssMb);
    sandboxAtLargest = run.sandboxPeakRssMb;
    console.log(`| ${messages.toLocaleString('en-US')} | ${(run.chatport.wallMs / 1000).toFixed(1)} | ${usPerRecord(run.chatport.cpuMs, run.records).toFixed(2)} | ${run.chatport.maxRssMb.toFixed(0)} | ${formatQuarters(run.chatport.rssByQuarterMb)} | ${run.chatport.liveHeapMaxMb.toFixed(0)} | ${run.sandboxPeakRssMb.toFixed(0)} |`);
  }
  const highest = Math.max(...peaks);
  const lowest = Math.min(...peaks);
  const sizesText = sizes.map((n) => `${n / 1e6}M`).join(', ');
  reportGoal({ goal: `import peak RSS at ${sizesText} messages`, target: `< ${RSS_GOAL_MB} MB`, measured: `${lowest.toFixed(0)}–${highest.toFixed(0)} MB`, met: highest < RSS_GOAL_MB });
  reportGoal({ goal: `import peak RSS spread across ${sizesText}`, target: `≤ ${RSS_SPREAD_GOAL * 100}%`, measured: `${(((highest - lowest) / lowest) * 100).toFixed(1)}%`, met: (highest - lowest) / lowest <= RSS_SPREAD_GOAL });
  const largest = Math.max(...sizes);
  reportGoal({
    goal: `sandbox peak RSS holding ${largest.toLocaleString('en-US')} messages`,
    target: `< ${SANDBOX_RSS_GOAL_MB} MB at ${SANDBOX_RSS_GOAL_MESSAGES.toLocaleString('en-US')}`,
    measured: `${sandboxAtLargest.toFixed(0)} MB`,
    met: largest >= SANDBOX_RSS_GOAL_MESSAGES && sandboxAtLargest < SANDBOX_RSS_GOAL_MB,
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      messages: { type: 'string', default: '1000000' },
      formats: { type: 'string', default: 'csv,ndjson,json' },
      runs: { type: 'string', default: '3' },
      'memory-sizes': { type: 'string', default: '1000000,5000000,10000000' },
    },
  });
  const formats = values.formats!.split(',').filter(Boolean) as InputFormat[];
  for (const format of formats) {
    if (!(format in FLOOR)) throw new Error(`unknown format ${format}; known: ${Object.keys(FLOOR).join(', ')}`);
    await cpuPairs(format, Number(values.messages), Number(values.runs));
  }
  const sizes = values['memory-sizes']!.split(',').filter(Boolean).map(Number);
  if (sizes.length > 0) await memoryBySize(sizes);
}
