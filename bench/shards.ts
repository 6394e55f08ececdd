/**
 * Sharding benchmark (issue 16): one generated Slack export (a zip) migrated by N chatport processes at once
 * (`migrate slack --shard i/N`), for N = 1, 2, 4, into a fresh sandbox (its own process) each time. Prints
 * per N the wall time of the whole migration and the CPU of each shard (min/median/max over the runs, the Ns
 * taken in turn). On a 2-core machine, N > 2 (and the sandbox beside the shards) shows the CPU split, not a
 * speed-up: the shards and the sandbox share two cores.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/shards.js --messages 200000 --runs 3
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSlackExport } from '../fixtures/slack/generator/index.js';
import { runMeasured, type Measured } from './lib/measure.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { spread } from './lib/spread.js';
import { CLI, workDir } from './lib/paths.js';

const WORK = workDir('shards');

interface ShardsRun {
  n: number;
  wallMs: number;
  shards: Measured[];
  messages: number;
}

async function migrateInShards(zip: string, n: number, dir: string): Promise<ShardsRun> {
  const sandbox = await startSandboxProcess();
  const state = join(dir, `state-${n}`);
  try {
    const env = { CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn' };
    const started = performance.now();
    const shards = await Promise.all(Array.from({ length: n }, (_, i) => runMeasured(CLI, ['migrate', 'slack', zip, '--state', state, '--shard', `${i}/${n}`, '--no-verify', '--json'], env)));
    const wallMs = performance.now() - started;
    let messages = 0;
    for (const [i, s] of shards.entries()) {
      if (s.code !== 0) throw new Error(`shard ${i}/${n} exited ${s.code}: ${s.stderrTail}`);
      const report = JSON.parse(s.stdout) as { totals: { balanced: boolean; rejected: number }; stages: { messages: { imported: number } } };
      if (!report.totals.balanced || report.totals.rejected !== 0) throw new Error(`shard ${i}/${n}: ${JSON.stringify(report.totals)}`);
      messages += report.stages.messages.imported;
    }
    return { n, wallMs, shards, messages };
  } finally {
    await sandbox.stop();
    await rm(state, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { messages: { type: 'string', default: '200000' }, runs: { type: 'string', default: '3' }, shards: { type: 'string', multiple: true, default: ['1', '2', '4'] } } });
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const messages = Number(values.messages);
  const counts = values.shards!.map(Number);
  await rm(WORK, { recursive: true, force: true });
  await mkdir(WORK, { recursive: true });
  const zip = join(WORK, 'export.zip');
  await generateSlackExport({ out: zip, seed: 3, messages });
  const byN = new Map<number, ShardsRun[]>(counts.map((n) => [n, []]));
  // The shard counts in turn, run after run, so a slower or busier moment of the machine hits each alike.
  for (let run = 0; run < Number(values.runs); run++)
    for (const n of counts) {
      const result = await migrateInShards(zip, n, WORK);
      if (result.messages < messages) throw new Error(`N=${n}: ${result.messages} messages imported of ${messages}`);
      byN.get(n)!.push(result);
      process.stderr.write(`N=${n} run ${run + 1}: wall ${(result.wallMs / 1000).toFixed(1)} s, shard CPU ${result.shards.map((s) => (s.cpuMs / 1000).toFixed(1)).join(' / ')} s\n`);
    }
  const one = byN.get(1);
  const lines = [
    `${messages.toLocaleString('en-US')} messages (Slack zip), ${values.runs} runs per N, min / median / max`,
    '',
    '| shards | wall s | CPU s per shard (all shards) | CPU s of the busiest shard | CPU s, all shards together | busiest shard / one process |',
    '|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [n, runs] of byN) {
    const busiest = runs.map((r) => Math.max(...r.shards.map((s) => s.cpuMs)) / 1000);
    const together = runs.map((r) => r.shards.reduce((t, s) => t + s.cpuMs, 0) / 1000);
    const ratio = one ? `${(spread(busiest).median / spread(one.map((r) => r.shards[0]!.cpuMs / 1000)).median).toFixed(2)}×` : '–';
    lines.push(`| ${n} | ${spread(runs.map((r) => r.wallMs / 1000)).text} | ${spread(runs.flatMap((r) => r.shards.map((s) => s.cpuMs / 1000))).text} | ${spread(busiest).text} | ${spread(together).text} | ${ratio} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  await rm(WORK, { recursive: true, force: true });
}
