/**
 * Pacing benchmark (issue 17): how much of the platform's capacity `chatport import` uses. N generated
 * messages in 5,000-item chunks imported by the built CLI (dist/) into the sandbox (its own process)
 * under two limits, taken in turn run by run:
 *   rate      `--fault 'POST /imports/messages=rate:1/1s'`: one message upload per second; ideal time of
 *             the messages stage = chunks × 1 s.
 *   capacity  `--items-per-second 5000`: the sandbox processes 5,000 items per second overall; ideal time
 *             = messages / 5,000 s.
 * Utilisation = ideal / actual, where actual is the messages stage's duration in the run report (reading,
 * uploading and waiting for every job); the goal is ≥ 95% for both. Prints every run and min/median/max.
 *
 *   node dist-bench/bench/pacing.js --messages 440000 --runs 3
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from './lib/import-inputs.js';
import { runMeasured } from './lib/measure.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { spread } from './lib/spread.js';
import { CLI, workDir } from './lib/paths.js';

const WORK = workDir();
const CHUNK = 5000;
const GOAL = 0.95;

interface Limit {
  name: string;
  sandboxArgs: string[];
  idealMs(messages: number, chunks: number): number;
}

const LIMITS: Limit[] = [
  { name: 'rate 1 POST/s', sandboxArgs: ['--fault', 'POST /imports/messages=rate:1/1s'], idealMs: (_messages, chunks) => chunks * 1000 },
  { name: 'capacity 5000 items/s', sandboxArgs: ['--items-per-second', '5000'], idealMs: (messages) => (messages / 5000) * 1000 },
];

interface StageReport {
  read: number;
  imported: number;
  chunks: number;
  durationMs: number;
  rateLimit?: { answers: number; uploadsPerSecond?: number };
}

async function runOnce(dir: string, limit: Limit, run: number, messages: number) {
  const sandbox = await startSandboxProcess(limit.sandboxArgs);
  const state = join(dir, `state-${run}-${limit.name.split(' ')[0]}`);
  try {
    const measured = await runMeasured(CLI, ['import', join(dir, 'pipeline.yaml'), '--state', state, '--json'], {
      CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn',
    });
    if (measured.code !== 0) throw new Error(`import exited ${measured.code}: ${measured.stderrTail}`);
    const report = JSON.parse(measured.stdout) as { stages: { messages: StageReport } };
    const stage = report.stages.messages;
    if (stage.imported !== messages) throw new Error(`imported ${stage.imported} of ${messages} messages`);
    const idealMs = limit.idealMs(messages, stage.chunks);
    return { limit: limit.name, run, chunks: stage.chunks, idealMs, stageMs: stage.durationMs, wallMs: measured.wallMs, utilisation: idealMs / stage.durationMs, rateLimit: stage.rateLimit };
  } finally {
    await sandbox.stop();
    await rm(state, { recursive: true, force: true });
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: 'string', default: '440000' }, runs: { type: 'string', default: '3' } } });
  const messages = Number(values.messages);
  const runs = Number(values.runs);
  const dir = join(WORK, `pacing-${messages}`);
  await rm(dir, { recursive: true, force: true });
  process.env.BENCH_OPTIONS = `{ chunkRecords: ${CHUNK}, chunkBytes: 4194304, concurrency: 4 }`;
  process.stderr.write(`pacing bench: generating ${messages.toLocaleString('en-US')} messages…\n`);
  await generate(dir, messages);
  const results: Array<Awaited<ReturnType<typeof runOnce>>> = [];
  try {
    // Pairs in turn, so that a slower stretch of a shared machine does not fall on one limit only.
    for (let run = 1; run <= runs; run++)
      for (const limit of LIMITS) {
        const r = await runOnce(dir, limit, run, messages);
        results.push(r);
        process.stdout.write(
          `${r.limit.padEnd(22)} run ${run}: ${r.chunks} chunks, ideal ${(r.idealMs / 1000).toFixed(1)} s, messages stage ${(r.stageMs / 1000).toFixed(1)} s ` +
            `(whole import ${(r.wallMs / 1000).toFixed(1)} s): utilisation ${pct(r.utilisation)}${r.rateLimit ? ` [${r.rateLimit.answers} × 429, paced to ${r.rateLimit.uploadsPerSecond ?? '–'}/s]` : ''}\n`,
        );
      }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`\n| limit | runs | utilisation min | median | max | goal |\n|---|---:|---:|---:|---:|---:|\n`);
  for (const limit of LIMITS) {
    const u = results.filter((r) => r.limit === limit.name).map((r) => r.utilisation);
    const { min, median, max } = spread(u);
    process.stdout.write(`| ${limit.name} | ${u.length} | ${pct(min)} | ${pct(median)} | ${pct(max)} | ≥ ${pct(GOAL)}: ${min >= GOAL ? 'met' : median >= GOAL ? 'median met' : 'not met'} |\n`);
  }
}
