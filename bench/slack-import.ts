/**
 * Slack migration benchmark (issue 5): a generated Slack export of N messages (a zip, as Slack gives it)
 * migrated into the sandbox with `chatport migrate slack`; messages/s, CPU seconds and peak RSS of the
 * chatport process (measured in its own child process; the sandbox runs in another one).
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/slack-import.js --messages 1000000
 *   node dist-bench/bench/slack-import.js --messages 100000 --messages 1000000   # peak RSS at two sizes
 *   node dist-bench/bench/slack-import.js --messages 1000000 --heap-mb 128        # proves a bounded heap suffices
 *   node dist-bench/bench/slack-import.js --messages 1000000 --messages 2000000 --runs 3   # peak RSS varies run to run
 *
 * Each run takes three candidates in turn: the migration as users run it (replies into their threads, one
 * request each), issue 12's one-pass floor over the same zip (bench/lib/floor-slack.mjs: each file inflated
 * once, JSON.parse'd, each message JSON.stringify'd), then the migration with `SLACK_THREADS=flatten` (replies
 * imported as channel messages: the imports alone, what the goal was first written for) into a fresh
 * sandbox. Both ratios of CPU per message are printed as min / median / max and reported against the goal
 * (≤ 2×).
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSlackExport } from '../fixtures/slack/generator/index.js';
import { formatQuarters, runMeasured, type Measured } from './lib/measure.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { CLI, benchLib, workDir } from './lib/paths.js';
import { ratioGoal } from './lib/goals.js';
import { spread } from './lib/spread.js';

const WORK = workDir('slack-import');

interface StageTotals {
  read: number;
  imported: number;
  rejected: number;
  skipped: number;
}

export interface SlackBenchResult {
  messages: number;
  zipMb: number;
  generateMs: number;
  chatport: Measured;
  /** The one-pass floor over the same zip, run right after the migration. */
  floor: Measured;
  /** The same migration with replies flattened into their channels (imports only), run after the floor. */
  flatten: Measured;
  /** Message items read (a message over the body limit counts once per part). */
  messageItems: number;
  totals: StageTotals & { balanced: boolean };
  messagesPerSecond: number;
}

/** `heapMb`: run chatport with `--max-old-space-size` (a migration that fits proves its memory is bounded). */
export async function benchSlackImport(messages: number, seed = 1, heapMb?: number): Promise<SlackBenchResult> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const dir = join(WORK, String(messages));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const zip = join(dir, 'export.zip');
  process.stderr.write(`slack bench: generating ${messages.toLocaleString('en-US')} messages…\n`);
  const started = performance.now();
  await generateSlackExport({ out: zip, seed, messages });
  const generateMs = performance.now() - started;
  try {
    const { measured: chatport, report } = await migrate(zip, join(dir, 'state'), {}, heapMb);
    const m = report.stages.messages;
    if (m.imported < messages) throw new Error(`unexpected report ${JSON.stringify(report.totals)}`);
    const floor = await runMeasured(benchLib('floor-slack.mjs'), [zip]);
    if (floor.code !== 0) throw new Error(`floor exited ${floor.code}: ${floor.stderrTail}`);
    const { measured: flatten } = await migrate(zip, join(dir, 'state-flatten'), { SLACK_THREADS: 'flatten' }, heapMb);
    return {
      messages, zipMb: (await stat(zip)).size / 2 ** 20, generateMs, chatport, floor, flatten, messageItems: m.read, totals: report.totals,
      messagesPerSecond: messages / (chatport.wallMs / 1000),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface MigrateReport {
  stages: { messages: StageTotals };
  totals: StageTotals & { balanced: boolean };
}

/** One `chatport migrate slack` into a fresh sandbox (its own process), checked: balanced, nothing rejected. */
async function migrate(zip: string, state: string, env: Record<string, string>, heapMb: number | undefined): Promise<{ measured: Measured; report: MigrateReport }> {
  const sandbox = await startSandboxProcess();
  try {
    process.stderr.write(`slack bench: migrating${env.SLACK_THREADS ? ` (threads: ${env.SLACK_THREADS})` : ''}…\n`);
    const measured = await runMeasured(CLI, ['migrate', 'slack', zip, '--state', state, '--json'], {
      CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn', ...env,
    }, heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`]);
    if (measured.code !== 0) throw new Error(`migrate exited ${measured.code}: ${measured.stderrTail}`);
    const report = JSON.parse(measured.stdout) as MigrateReport;
    if (!report.totals.balanced || report.totals.rejected !== 0) throw new Error(`unexpected report ${JSON.stringify(report.totals)}`);
    return { measured, report };
  } finally {
    await sandbox.stop();
  }
}

const floorUs = (r: SlackBenchResult) => (r.floor.cpuMs * 1000) / r.messages;
const flattenUs = (r: SlackBenchResult) => (r.flatten.cpuMs * 1000) / r.messages;

export function formatSlackResults(results: SlackBenchResult[]): string {
  const rows = results.map((r) =>
    `| ${r.messages.toLocaleString('en-US')} | ${r.zipMb.toFixed(0)} | ${r.totals.read.toLocaleString('en-US')} | ${(r.chatport.wallMs / 1000).toFixed(1)} | ${Math.round(r.messagesPerSecond).toLocaleString('en-US')} | ${(r.chatport.cpuMs / 1000).toFixed(1)} | ${((r.chatport.cpuMs * 1000) / r.messages).toFixed(1)} | ${r.chatport.maxRssMb.toFixed(0)} | ${formatQuarters(r.chatport.rssByQuarterMb)} | ${r.chatport.liveHeapMaxMb.toFixed(0)} (${r.chatport.majorGcs}) | ${floorUs(r).toFixed(1)} | ${(((r.chatport.cpuMs * 1000) / r.messages) / floorUs(r)).toFixed(2)}× | ${flattenUs(r).toFixed(1)} | ${(flattenUs(r) / floorUs(r)).toFixed(2)}× |`);
  return [
    '| messages | zip MB | records read (all stages) | wall s | messages/s | CPU s | CPU µs/message | peak RSS MB | peak RSS by quarter of the run, MB | most old generation in use after a full GC, MB (full GCs) | floor CPU µs/message | ratio | threads: flatten, CPU µs/message | its ratio |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: 'string', multiple: true, default: ['1000000'] }, seed: { type: 'string', default: '1' }, 'heap-mb': { type: 'string' }, runs: { type: 'string', default: '1' } } });
  const heapMb = values['heap-mb'] === undefined ? undefined : Number(values['heap-mb']);
  const runs = Number(values.runs);
  if (heapMb !== undefined) process.stdout.write(`chatport heap capped at ${heapMb} MB (--max-old-space-size)\n`);
  // Peak RSS moves between runs of the same export with V8's heap sizing; `--runs 3` shows by how much.
  const bySize: SlackBenchResult[][] = [];
  for (const n of values.messages!) {
    const results: SlackBenchResult[] = [];
    for (let run = 0; run < runs; run++) results.push(await benchSlackImport(Number(n), Number(values.seed), heapMb));
    bySize.push(results);
  }
  process.stdout.write(`${formatSlackResults(bySize.flat())}\n`);
  for (const results of bySize) {
    const ratios = spread(results.map((r) => (r.chatport.cpuMs * 1000) / r.messages / floorUs(r)), 2);
    process.stdout.write(`${results[0]!.messages.toLocaleString('en-US')} messages, CPU per message vs the one-pass floor, min / median / max: ${ratios.text}\n`);
    ratioGoal(`Slack migration CPU per message vs its one-pass floor (${results[0]!.messages.toLocaleString('en-US')} messages)`, 2, ratios, results.length);
    const flat = spread(results.map((r) => flattenUs(r) / floorUs(r)), 2);
    process.stdout.write(`${results[0]!.messages.toLocaleString('en-US')} messages, threads: flatten, CPU per message vs the one-pass floor, min / median / max: ${flat.text}\n`);
    ratioGoal(`Slack migration with threads: flatten (the imports alone) vs the same floor (${results[0]!.messages.toLocaleString('en-US')} messages)`, 2, flat, results.length);
  }
  if (bySize.length > 1) {
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const a = bySize[0]!;
    const b = bySize.at(-1)!;
    const growth = (pick: (r: SlackBenchResult) => number) => `${(((median(b.map(pick)) - median(a.map(pick))) / median(a.map(pick))) * 100).toFixed(1)}%`;
    const which = runs > 1 ? `medians of ${runs} runs, ` : '';
    process.stdout.write(
      `${b[0]!.messages.toLocaleString('en-US')} vs ${a[0]!.messages.toLocaleString('en-US')} (${which}peak RSS ${a.map((r) => r.chatport.maxRssMb.toFixed(0)).join('/')} → ${b.map((r) => r.chatport.maxRssMb.toFixed(0)).join('/')} MB): ` +
        `peak RSS ${growth((r) => r.chatport.maxRssMb)}, most old generation in use after a full GC ${growth((r) => r.chatport.liveHeapMaxMb)}\n`,
    );
  }
}
