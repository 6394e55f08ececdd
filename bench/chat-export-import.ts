/**
 * Discord and Mattermost migration benchmark (issue 14): a generated export of N messages (a folder of
 * DiscordChatExporter JSON files; a Mattermost bulk export .jsonl) migrated into the sandbox with
 * `chatport migrate discord|mattermost` (built CLI, its own measured process; the sandbox in another).
 * Prints messages/s, CPU µs per message and peak RSS (and by quarter of the run, to show it flat),
 * min/median/max over the runs.
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist-bench/bench/chat-export-import.js --source discord --messages 1000000
 *   node dist-bench/bench/chat-export-import.js --source mattermost --messages 1000000 --runs 3
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateDiscordExport } from '../fixtures/discord/generator/index.js';
import { generateMattermostExport } from '../fixtures/mattermost/generator/index.js';
import { formatQuarters, runMeasured, type Measured } from './lib/measure.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { spread } from './lib/spread.js';
import { CLI, workDir } from './lib/paths.js';

const WORK = workDir('chat-export');

type Source = 'discord' | 'mattermost';

async function generate(source: Source, messages: number, dir: string): Promise<string> {
  if (source === 'discord') {
    const out = join(dir, 'discord');
    await generateDiscordExport({ out, seed: 1, messages });
    return out;
  }
  const out = join(dir, 'export.jsonl');
  await generateMattermostExport({ out, seed: 1, messages });
  return out;
}

async function migrate(source: Source, exportPath: string, dir: string): Promise<{ measured: Measured; messages: number }> {
  const sandbox = await startSandboxProcess();
  try {
    const env = { CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn' };
    const measured = await runMeasured(CLI, ['migrate', source, exportPath, '--state', join(dir, 'state'), '--no-verify', '--json'], env);
    if (measured.code !== 0) throw new Error(`migrate ${source} exited ${measured.code}: ${measured.stderrTail}`);
    const report = JSON.parse(measured.stdout) as { totals: { balanced: boolean; rejected: number }; stages: { messages: { imported: number; read: number } } };
    if (!report.totals.balanced || report.totals.rejected !== 0) throw new Error(`unexpected report ${JSON.stringify(report.totals)}`);
    return { measured, messages: report.stages.messages.read };
  } finally {
    await sandbox.stop();
    await rm(join(dir, 'state'), { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { source: { type: 'string', multiple: true, default: ['discord', 'mattermost'] }, messages: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '1' } } });
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
  const n = Number(values.messages);
  const lines = [
    '| source | messages | runs | wall s | messages/s | CPU µs/message | peak RSS MB | peak RSS by quarter (last run), MB | most old generation in use after a full GC, MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const source of values.source! as Source[]) {
    const dir = join(WORK, source);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    process.stderr.write(`${source}: generating ${n.toLocaleString('en-US')} messages…\n`);
    const exportPath = await generate(source, n, dir);
    const runs: Array<{ measured: Measured; messages: number }> = [];
    for (let r = 0; r < Number(values.runs); r++) {
      runs.push(await migrate(source, exportPath, dir));
      const last = runs.at(-1)!;
      process.stderr.write(`${source} run ${r + 1}: ${(last.measured.wallMs / 1000).toFixed(1)} s wall, ${(last.measured.cpuMs / 1000).toFixed(1)} s CPU, ${last.measured.maxRssMb.toFixed(0)} MB peak RSS\n`);
    }
    const items = runs[0]!.messages;
    lines.push(
      `| ${source} | ${items.toLocaleString('en-US')} | ${runs.length} | ${spread(runs.map((r) => r.measured.wallMs / 1000)).text} | ${spread(runs.map((r) => items / (r.measured.wallMs / 1000)), 0).text} | ${spread(runs.map((r) => (r.measured.cpuMs * 1000) / items)).text} | ${spread(runs.map((r) => r.measured.maxRssMb), 0).text} | ${formatQuarters(runs.at(-1)!.measured.rssByQuarterMb)} | ${spread(runs.map((r) => r.measured.liveHeapMaxMb), 0).text} |`,
    );
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}
