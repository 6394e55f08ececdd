/**
 * `npm run bench`: every benchmark in turn, each in its own process so one does not disturb the next, run
 * as built JavaScript. Each benchmark reports issue 12's goals it measures (bench/lib/goals.ts); the table
 * at the end puts every measured ratio beside its goal. Figures are recorded by hand in BENCHMARKS.md with
 * the machine and date. Pick some with
 * `npm run bench -- import sandbox`; `--quick` runs smaller sizes to check the harness works.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync } from 'node:fs';
import { arch, cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { GOAL_PREFIX, type GoalResult } from './lib/goals.js';

const quick = process.argv.includes('--quick');
const BENCHES: Record<string, { script: string; args: string[]; quickArgs: string[] }> = {
  sandbox: { script: 'sandbox-ingest.ts', args: ['--items', '500000', '--runs', '3'], quickArgs: ['--items', '50000', '--runs', '1'] },
  transform: { script: 'transform-throughput.ts', args: ['--rows', '200000', '--runs', '3'], quickArgs: ['--rows', '20000', '--runs', '1'] },
  import: { script: 'import.ts', args: [], quickArgs: ['--messages', '20000', '--runs', '1', '--memory-sizes', '20000,40000'] },
  slack: { script: 'slack-import.ts', args: ['--messages', '100000', '--runs', '3'], quickArgs: ['--messages', '20000'] },
  pacing: { script: 'pacing.ts', args: ['--messages', '440000', '--runs', '3'], quickArgs: ['--messages', '40000', '--runs', '1'] },
  export: { script: 'export-parquet.ts', args: ['--rows', '1000000', '--runs', '3'], quickArgs: ['--rows', '50000', '--runs', '1'] },
  parquet: { script: 'parquet-writer.ts', args: ['--runs', '3'], quickArgs: ['--rows', '100000'] },
  'chat-exports': { script: 'chat-export-import.ts', args: ['--messages', '1000000'], quickArgs: ['--messages', '5000'] },
  shards: { script: 'shards.ts', args: ['--messages', '200000', '--runs', '3'], quickArgs: ['--messages', '5000', '--runs', '1'] },
  'earlier-imports': { script: 'earlier-imports.ts', args: ['--runs-before', '10', '--messages', '100000', '--pairs', '3'], quickArgs: ['--runs-before', '2', '--messages', '10000', '--pairs', '1'] },
  replies: { script: 'replies.ts', args: ['--messages', '100000', '--runs', '3'], quickArgs: ['--messages', '5000', '--runs', '1'] },
};

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const names = chosen.length > 0 ? chosen : Object.keys(BENCHES);
console.log(`# chatport benchmarks — ${new Date().toISOString()}, node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'} (${arch()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
let failed = 0;
const goals: Array<GoalResult & { bench: string }> = [];
for (const name of names) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(', ')}`);
    failed++;
    continue;
  }
  // Compiled beside this file (dist-bench/bench/): benchmarks run built JavaScript, never TypeScript through a loader.
  const script = fileURLToPath(new URL(`./${bench.script.replace(/\.ts$/, '.js')}`, import.meta.url));
  if (!existsSync(script)) {
    console.error(`${name}: ${bench.script} is missing`);
    failed++;
    continue;
  }
  console.log(`\n## ${name}\n`);
  const code = await runBench(script, quick ? bench.quickArgs : bench.args, name);
  if (code !== 0) failed++;
}
printGoals();
process.exitCode = failed > 0 ? 1 : 0;

/** Runs one benchmark, echoing its output and keeping its goal lines for the summary. */
function runBench(script: string, args: string[], name: string): Promise<number | null> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith(GOAL_PREFIX)) goals.push({ bench: name, ...(JSON.parse(line.slice(GOAL_PREFIX.length)) as GoalResult) });
    else console.log(line);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
}

function printGoals(): void {
  if (goals.length === 0) return;
  console.log(`\n## Issue 12's goals${quick ? ' (--quick: small sizes, not the goals\' measure)' : ''}\n`);
  console.log('| benchmark | goal | target | measured | met |');
  console.log('|---|---|---|---|---|');
  for (const g of goals) console.log(`| ${g.bench} | ${g.goal} | ${g.target} | ${g.measured} | ${g.met ? 'met' : '**not met**'} |`);
}
