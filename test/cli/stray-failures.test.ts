import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const PRELOAD = join(import.meta.dirname, 'fixtures', 'throw-after-first-write.mjs');
const SECRET = 'stray-secret-5f1c9a';

/** `chatport schema` with an error thrown outside any await once it writes; its exit, stderr and termination log. */
async function runWithStrayError(env: Record<string, string>): Promise<{ code: number | null; stderr: string; terminationLog: string }> {
  const terminationLog = join(await mkdtemp(join(tmpdir(), 'stray-')), 'termination-log');
  await writeFile(terminationLog, '');
  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', PRELOAD, join(ROOT, 'src/cli/main.ts'), 'schema'], {
      cwd: ROOT,
      env: { ...process.env, CHATPORT_LOG_LEVEL: 'warn', CHATPORT_CLIENT_SECRET: SECRET, CHATPORT_TERMINATION_LOG: terminationLog, ...env },
    });
    let err = '';
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ code: exit, stderr: err }));
  });
  return { code, stderr, terminationLog: await readFile(terminationLog, 'utf8') };
}

describe('an error thrown where no await catches it (inside a dependency)', () => {
  it('is said as every failure is: one scrubbed line, the JSON log line and the termination log, exit 1 for a bug', async () => {
    const run = await runWithStrayError({ THROW_MESSAGE: `boom while holding ${SECRET}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('chatport: internal error: boom while holding [REDACTED]');
    expect(run.stderr).not.toContain(SECRET);
    expect(run.stderr).not.toMatch(/^\s+throw error;|Node\.js v\d+/m);
    expect(run.stderr).toMatch(/"msg":"run failed"/);
    const summary = JSON.parse(run.terminationLog) as { status: string; exitCode: number; error: { code: string; message: string } };
    expect(summary).toMatchObject({ status: 'failed', exitCode: 1, error: { code: 'INTERNAL', message: 'boom while holding [REDACTED]' } });
  });

  it('is said once when a second stray error follows the first', async () => {
    const run = await runWithStrayError({ THROW_MESSAGE: 'first stray error', THROW_TWICE: '1' });
    expect(run.code).toBe(1);
    expect(run.stderr.match(/chatport: internal error:/g)).toHaveLength(1);
    expect(run.stderr.match(/"msg":"run failed"/g)).toHaveLength(1);
  });

  it('keeps the exit code of what it is: a full disk is 74, not a bug', async () => {
    const run = await runWithStrayError({ THROW_MESSAGE: 'no space left on device, write', THROW_CODE: 'ENOSPC' });
    expect(run.code).toBe(74);
    expect(JSON.parse(run.terminationLog)).toMatchObject({ status: 'failed', exitCode: 74 });
  });
});
