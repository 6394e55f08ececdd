import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** The CLI with its stdout's reader gone before it writes a byte (as `| head` that has read enough). */
function runWithClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, CHATPORT_LOG_LEVEL: 'warn' } });
    // Closed in the tick the child is spawned: it cannot have written yet (it has not loaded Node).
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a reader that goes away', () => {
  it('ends the command with its own exit code, without an EPIPE crash', async () => {
    const help = await runWithClosedStdout(['schema']);
    expect(help.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(help.code).toBe(0);
  });
});
