import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { basic, type Body } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function runCli(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, CHATPORT_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = async (pattern: RegExp): Promise<RegExpMatchArray> => {
    for (let i = 0; i < 400; i++) {
      const m = stdout.match(pattern);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no ${pattern} in output:\n${stdout}\n${stderr}`);
  };
  return { child, exited, output, text: () => ({ stdout, stderr }) };
}

describe('chatport sandbox', () => {
  it('prints its URL, token URL and credentials, answers with a token from its token endpoint, stops on SIGTERM', async () => {
    const cli = runCli(['sandbox', '--port', '0', '--seed', 'demo', '--client-id', 'cli-client', '--client-secret', 'cli-secret-value', '--fault', 'GET /jobs=status:503,times=1']);
    const url = (await cli.output(/url:\s+(http:\S+)/))[1]!;
    const tokenUrl = (await cli.output(/token url:\s+(http:\S+)/))[1]!;
    expect(tokenUrl).toBe(`${url}/oauth/token`);
    expect(cli.text().stdout).toMatch(/client id:\s+cli-client/);
    expect(cli.text().stdout).toMatch(/client secret:\s+cli-secret-value/);
    expect(cli.text().stdout).toContain(`  export CHATPORT_API_URL='${url}'\n  export CHATPORT_CLIENT_ID='cli-client'\n  export CHATPORT_CLIENT_SECRET='cli-secret-value'\n`);
    const token = await fetch(tokenUrl, {
      method: 'POST',
      headers: { authorization: basic('cli-client', 'cli-secret-value'), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const users = await fetch(`${url}/users?name=alice`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(users.status).toBe(200);
    expect(((await users.json()) as Body)._embedded.users[0].name).toBe('alice');
    expect((await fetch(`${url}/jobs`, { headers: { authorization: `Bearer ${token.access_token}` } })).status).toBe(503);
    expect((await fetch(`${url}/jobs`, { headers: { authorization: `Bearer ${token.access_token}` } })).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
    expect(cli.text().stdout).toContain('chatport sandbox stopped');
    expect(cli.text().stderr).not.toContain('cli-secret-value');
  });

  it('documents its options and fault syntax in --help', async () => {
    const cli = runCli(['sandbox', '--help']);
    expect(await cli.exited).toBe(0);
    for (const flag of ['--port', '--host', '--seed', '--data', '--client-id', '--client-secret', '--token-lifetime', '--fault', '--faults', '--items-per-second', '--concurrent-jobs', '--fault-seed'])
      expect(cli.text().stdout).toContain(flag);
    expect(cli.text().stdout).toContain('POST /imports/**=status:503@0.2');
  });

  it('refuses a malformed --fault with the usage exit code', async () => {
    const cli = runCli(['sandbox', '--port', '0', '--fault', '/x=explode:1']);
    expect(await cli.exited).toBe(64);
    expect(cli.text().stderr).toContain("invalid --fault '/x=explode:1'");
  });

  it('refuses a --faults file whose rules are malformed with the usage exit code, naming the rule, not as an internal error', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sandbox-faults-')), 'faults.json');
    writeFileSync(file, JSON.stringify([{ fault: { kind: 'status', status: 503 } }, 1]));
    const shape = runCli(['sandbox', '--port', '0', '--faults', file]);
    expect(await shape.exited).toBe(64);
    expect(shape.text().stderr).toContain(`--faults ${file}: rule 1: expected an object {"fault": {"kind": "status" | "rateLimit" | "drop" | "delay" | "redirect", …}, "method"?, "path"?, "probability"?, "times"?}, found 1`);
    writeFileSync(file, JSON.stringify([{ fault: { kind: 'status', status: 503 }, probability: 2 }]));
    const bound = runCli(['sandbox', '--port', '0', '--faults', file]);
    expect(await bound.exited).toBe(64);
    expect(bound.text().stderr).toContain('probability must be within 0..1');
  });

  it('a --faults file that does not exist is missing input (66), as README says of input files', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sandbox-faults-')), 'faults.json');
    const cli = runCli(['sandbox', '--port', '0', '--faults', file]);
    expect(await cli.exited).toBe(66);
    expect(cli.text().stderr).toContain(`--faults ${file}: ENOENT: no such file or directory`);
  });

  it('a --port another process holds: exit 75 (retry, or choose another port), not 1 as a bug of chatport', async () => {
    const holder = await startSandbox({ port: 0 });
    try {
      const port = new URL(holder.url).port;
      const cli = runCli(['sandbox', '--port', port]);
      expect(await cli.exited).toBe(75);
      expect(cli.text().stderr).toContain(`chatport: the sandbox cannot listen on 127.0.0.1:${port}: another process holds that port; choose another port`);
      expect(cli.text().stderr).not.toContain('bug');
    } finally {
      await holder.close();
    }
  });
});
