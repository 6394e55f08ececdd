/**
 * `npm run bench`: every benchmark in turn, each in its own process so one does not disturb the next.
 * Figures are recorded by hand in BENCHMARKS.md with the machine and date. Pick some with
 * `npm run bench -- import sandbox`; `--quick` runs smaller sizes to check the harness works.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { arch, cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';

const quick = process.argv.includes('--quick');
const BENCHES: Record<string, { script: string; args: string[]; quickArgs: string[] }> = {
  sandbox: { script: 'sandbox-ingest.ts', args: ['--items', '500000', '--runs', '3'], quickArgs: ['--items', '50000', '--runs', '1'] },
  transform: { script: 'transform-throughput.ts', args: ['--rows', '200000'], quickArgs: ['--rows', '20000'] },
  import: { script: 'import-csv.ts', args: ['--messages', '1000000', '--messages', '5000000'], quickArgs: ['--messages', '50000'] },
  slack: { script: 'slack-import.ts', args: ['--messages', '1000000', '--messages', '2000000', '--runs', '3'], quickArgs: ['--messages', '20000'] },
  pacing: { script: 'pacing.ts', args: ['--messages', '440000', '--runs', '3'], quickArgs: ['--messages', '40000', '--runs', '1'] },
  export: { script: 'export-parquet.ts', args: ['--rows', '1000000'], quickArgs: ['--rows', '50000'] },
  parquet: { script: 'parquet-writer.ts', args: [], quickArgs: ['--rows', '100000'] },
  'chat-exports': { script: 'chat-export-import.ts', args: ['--messages', '1000000'], quickArgs: ['--messages', '5000'] },
  shards: { script: 'shards.ts', args: ['--messages', '200000', '--runs', '3'], quickArgs: ['--messages', '5000', '--runs', '1'] },
  replies: { script: 'replies.ts', args: ['--messages', '100000', '--runs', '3'], quickArgs: ['--messages', '5000', '--runs', '1'] },
};

const chosen = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const names = chosen.length > 0 ? chosen : Object.keys(BENCHES);
console.log(`# chatport benchmarks — ${new Date().toISOString()}, node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? '?'} (${arch()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
let failed = 0;
for (const name of names) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(BENCHES).join(', ')}`);
    failed++;
    continue;
  }
  const script = fileURLToPath(new URL(`./${bench.script}`, import.meta.url));
  if (!existsSync(script)) {
    console.error(`${name}: ${bench.script} is missing`);
    failed++;
    continue;
  }
  console.log(`\n## ${name}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...(quick ? bench.quickArgs : bench.args)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
