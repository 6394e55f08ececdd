import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { generateCsvs, generatedPipeline, runCli, writeInput } from '../import/support.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';

const ROOT = join(import.meta.dirname, '../..');

/** `chatport sandbox --stuck-jobs`, as a user rehearsing a platform whose jobs never end starts it. */
let sandbox: ReturnType<typeof spawn>;
let env: Record<string, string> = {};
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatport-job-deadline-'));
  sandbox = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', '--print-env', '--port', '0', '--stuck-jobs'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    sandbox.stdout!.on('data', (d: Buffer) => {
      printed += d.toString();
      if (/CHATPORT_CLIENT_SECRET=.*\n/.test(printed)) resolve();
    });
    sandbox.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
  env = Object.fromEntries([...printed.matchAll(/^export (\w+)=(?:'([^']*)'|(\S*))$/gm)].map((m) => [m[1]!, m[2] ?? m[3]!]));
});
afterAll(() => {
  sandbox.kill('SIGTERM');
});

async function jobIds(): Promise<number[]> {
  const client = createClient({ apiUrl: env.CHATPORT_API_URL!, auth: { kind: 'client-credentials', tokenUrl: `${env.CHATPORT_API_URL}/oauth/token`, clientId: env.CHATPORT_CLIENT_ID!, clientSecret: env.CHATPORT_CLIENT_SECRET! }, retry: 'rapid' });
  try {
    const ids: number[] = [];
    for await (const job of client.jobs.list()) ids.push(Number(job.id));
    return ids.sort((a, b) => a - b);
  } finally {
    await client.close();
  }
}

describe('an import job that never ends (sandbox --stuck-jobs, import --job-timeout)', () => {
  it('gives up at the deadline with exit 75, and the next run polls the same jobs instead of uploading again', { timeout: 60_000 }, async () => {
    const pipelineDir = join(dir, 'p');
    for (const [file, text] of Object.entries(generateCsvs({ users: 4, channels: 1, messages: 3 }))) await writeInput(pipelineDir, `${file}.csv`, text);
    const path = await writeInput(pipelineDir, 'pipeline.yaml', generatedPipeline('stuck', 'chunkRecords: 2\n  concurrency: 1'));
    const state = join(dir, 'state');
    const first = await runCli(['import', path, '--state', state, '--job-timeout', '1'], env);
    expect(first.code, first.stderr).toBe(ExitCode.TEMPORARY);
    expect(first.stderr).toMatch(/^chatport: job \d+ \(USER_IMPORT\) is still RUNNING after 1 s, the deadline.* — run the same command again later/m);
    const uploaded = await jobIds();
    expect(uploaded.length).toBeGreaterThan(0);
    const second = await runCli(['import', path, '--state', state, '--job-timeout', '1'], env);
    expect(second.code, second.stderr).toBe(ExitCode.TEMPORARY);
    expect(await jobIds()).toEqual(uploaded);

    // Verification's messages export never ends either: it gives up at the same deadline.
    const verify = await runCli(['verify', path, '--state', state, '--job-timeout', '1'], env);
    expect(verify.code, verify.stderr).toBe(ExitCode.TEMPORARY);
    expect(verify.stderr).toMatch(/^chatport: job \d+ \(MESSAGE_ANALYTICS_EXPORT\) is still RUNNING after 1 s, the deadline/m);
  });

  it('names a fractional deadline as given (--job-timeout 0.3 is "after 0.3 s", jobs wait --timeout 1.1 "after 1.1 s"), and refuses a flag value that is no decimal number of seconds', { timeout: 60_000 }, async () => {
    const pipelineDir = join(dir, 'fraction');
    for (const [file, text] of Object.entries(generateCsvs({ users: 2, channels: 1, messages: 1 }))) await writeInput(pipelineDir, `${file}.csv`, text);
    const path = await writeInput(pipelineDir, 'pipeline.yaml', generatedPipeline('stuck-fraction', 'chunkRecords: 2\n  concurrency: 1'));
    const run = await runCli(['import', path, '--state', join(dir, 'state-fraction'), '--job-timeout', '0.3'], env);
    expect(run.code, run.stderr).toBe(ExitCode.TEMPORARY);
    expect(run.stderr).toMatch(/^chatport: job \d+ \(USER_IMPORT\) is still RUNNING after 0\.3 s, the deadline/m);

    const [job] = await jobIds();
    const wait = await runCli(['jobs', 'wait', String(job), '--timeout', '1.1', '--interval', '0.5'], env);
    expect(wait.code, wait.stderr).toBe(ExitCode.TEMPORARY);
    expect(wait.stderr).toMatch(/is still RUNNING after 1\.1 s, the deadline/);

    const hex = await runCli(['import', path, '--state', join(dir, 'state-fraction'), '--job-timeout', '0x10'], env);
    expect(hex.code).toBe(ExitCode.USAGE);
    expect(hex.stderr).toContain('--job-timeout must be a positive number of seconds, written with digits (e.g. 30 or 0.5), got "0x10"');
  });
});
