import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, fencedBlockAfter, sectionAfter } from './readme.js';

const HEADING = '## Your first import';

/** A new user's shell: no chatport or Slack variable from whoever runs the tests. */
const freshEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(CHAT_|CHATPORT_|SLACK_)/.test(name)));

let group: number | undefined;
afterAll(() => {
  // The block leaves the sandbox running in the background, as it would for the user: stop its process group.
  if (group !== undefined) process.kill(-group, 'SIGTERM');
});

/** Runs README's block with bash in a folder that looks like the checkout; resolves when bash exits. */
async function runBlock(block: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'chatport-readme-'));
  for (const name of ['dist', 'pipelines', 'fixtures']) await symlink(join(ROOT, name), join(dir, name));
  const child = spawn('bash', ['-c', block], { cwd: dir, env: freshEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  group = child.pid;
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  // Not 'close': the sandbox left in the background keeps stderr open. Its stdout goes to sandbox.env.
  const [code] = await Promise.all([
    new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c))),
    new Promise<void>((resolve) => child.stdout.on('end', () => resolve())),
  ]);
  return { code, stdout, stderr };
}

describe("README's first import, followed literally", () => {
  it('the documented commands give the documented exit code and counts', { timeout: 120_000 }, async () => {
    expect(existsSync(join(ROOT, 'dist/cli/main.js')), 'the steps use the built CLI: run npm run build first').toBe(true);
    const stated = /exit code (\d+): of (\d+) records read, (\d+) are imported, (\d+) rejected[^]*? and (\d+) skipped/.exec(sectionAfter(HEADING).replace(/\s+/g, ' '));
    expect(stated, 'README states the exit code and the counts').not.toBeNull();
    const [code, read, imported, rejected, skipped] = stated!.slice(1).map(Number);

    const result = await runBlock(fencedBlockAfter(HEADING, 'sh'));

    expect(result.code, result.stderr).toBe(code);
    const total = /^total\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+(\d+)\s+\d+\s+(\d+)\s/m.exec(result.stdout);
    expect(total, result.stdout).not.toBeNull();
    expect(total!.slice(1).map(Number)).toEqual([read, imported, rejected, skipped]);
    expect(result.stdout).toMatch(/completed-with-rejects/);
    expect(result.stdout).toMatch(/verification: exact/);
  });
});
