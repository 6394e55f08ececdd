/**
 * Verify's memory when the platform lacks millions of messages (docs/verify.md "Limits"): a CSV pipeline
 * whose users and channels are imported and whose messages are not, then `chatport verify` (built CLI, its
 * own process) against that run's state folder: every message is a `missing` difference. Prints peak RSS,
 * CPU and the exit code at each size (65 expected: differences, with the full differences file).
 *
 *   node dist-bench/bench/verify-memory.js [--sizes 200000,1000000] [--heap-mb 768]
 */
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from './lib/import-inputs.js';
import { runMeasured } from './lib/measure.js';
import { CLI, workDir } from './lib/paths.js';
import { startSandboxProcess } from './lib/sandbox-process.js';

async function measure(messages: number, heapMb: number | undefined): Promise<void> {
  const dir = workDir(`verify-memory-${messages}`);
  await rm(dir, { recursive: true, force: true });
  await generate(dir, messages, 'csv');
  const full = await readFile(join(dir, 'pipeline.yaml'), 'utf8');
  // The same pipeline (same name, so the same id) without its messages stage: the platform gets none of them.
  await writeFile(join(dir, 'no-messages.yaml'), full.slice(0, full.indexOf('  messages:')));
  const sandbox = await startSandboxProcess();
  try {
    const env = { CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.clientId, CHATPORT_CLIENT_SECRET: sandbox.clientSecret, CHATPORT_LOG_LEVEL: 'warn' };
    const state = join(dir, 'state');
    const imported = await runMeasured(CLI, ['import', join(dir, 'no-messages.yaml'), '--state', state, '--json', '--no-verify'], env);
    if (imported.code !== 0) throw new Error(`import exited ${imported.code}: ${imported.stderrTail}`);
    const nodeArgs = heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`];
    const verified = await runMeasured(CLI, ['verify', join(dir, 'pipeline.yaml'), '--state', state, '--sample', '0'], env, nodeArgs);
    const lines = verified.stdout.split('\n');
    const file = lines.find((l) => l.includes('verify-differences.ndjson'))?.match(/\/\S+verify-differences\.ndjson/)?.[0];
    const size = file ? (await stat(file)).size : 0;
    console.log(
      `| ${messages.toLocaleString('en-US')} | ${heapMb ?? 'default'} | ${verified.code} | ${verified.maxRssMb.toFixed(0)} | ${(verified.cpuMs / 1000).toFixed(1)} | ${(verified.wallMs / 1000).toFixed(1)} | ${(size / 1e6).toFixed(0)} | ${verified.liveHeapMaxMb.toFixed(0)} | ${lines[1] ?? ''} |`,
    );
    if (verified.code !== 65) console.log(verified.stderrTail);
  } finally {
    await sandbox.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '200000' }, 'heap-mb': { type: 'string' } } });
console.log('| missing messages | heap MB | exit | peak RSS MB | CPU s | wall s | differences file MB | live heap max MB | verdict |');
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---|');
for (const size of values.sizes.split(',').map(Number)) await measure(size, values['heap-mb'] === undefined ? undefined : Number(values['heap-mb']));
