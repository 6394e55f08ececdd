import { execFile, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../import/support.js';

const ROOT = join(import.meta.dirname, '../..');
const NAMES = ['CHATPORT_API_URL', 'CHATPORT_CLIENT_ID', 'CHATPORT_CLIENT_SECRET'];

/** Only what --print-env gives: no chatport or Slack variable from whoever runs the tests. */
const onlyPrinted = (vars: Record<string, string>) => ({
  ...Object.fromEntries(Object.keys(process.env).filter((n) => /^(CHAT_|CHATPORT_|SLACK_)/.test(n)).map((n) => [n, undefined])),
  ...vars,
});

let sandbox: ReturnType<typeof spawn>;
let printed = '';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatport-print-env-'));
  sandbox = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', '--print-env', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  sandbox.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
  // The lines come in one write once the sandbox listens; wait for the last of them.
  await new Promise<void>((resolve, reject) => {
    sandbox.stdout!.on('data', () => printed.includes('CHATPORT_CLIENT_SECRET=') && resolve());
    sandbox.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
});
afterAll(() => {
  sandbox.kill('SIGTERM');
});

/** What a shell makes of the printed lines. */
async function sourced(): Promise<Record<string, string>> {
  const script = `${printed}\nfor n in ${NAMES.join(' ')}; do printf '%s=%s\\n' "$n" "\${!n}"; done`;
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { env: { PATH: process.env.PATH } });
  return Object.fromEntries(stdout.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

describe('chatport sandbox --print-env', () => {
  it('prints exactly the three export lines on stdout, ready to paste into a shell', async () => {
    expect(printed.split('\n').filter(Boolean).map((l) => l.replace(/=.*/, ''))).toEqual(NAMES.map((n) => `export ${n}`));
    const vars = await sourced();
    expect(vars.CHATPORT_API_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(vars.CHATPORT_CLIENT_ID).not.toBe('');
    expect(vars.CHATPORT_CLIENT_SECRET!.length).toBeGreaterThan(8);
  });

  it('every bundled pipeline runs against it with only those variables set', { timeout: 120_000 }, async () => {
    // A pipeline added later must join this test.
    expect(readdirSync(join(ROOT, 'pipelines')).filter((f) => f.endsWith('.yaml')).sort()).toEqual(['csv-example.yaml', 'discord.yaml', 'mattermost.yaml', 'nightly-analytics.yaml', 'raw-dump.yaml', 'slack.yaml']);
    const env = onlyPrinted(await sourced());
    const csv = await runCli(['import', 'pipelines/csv-example.yaml', '--state', join(dir, 'csv')], env);
    expect(csv.code, csv.stderr).toBe(2); // the example's records that are bad on purpose
    const raw = await runCli(['import', 'pipelines/raw-dump.yaml', '--state', join(dir, 'raw')], env);
    expect(raw.code, raw.stderr).toBe(0);
    const slack = await runCli(['import', 'pipelines/slack.yaml', '--state', join(dir, 'slack')], env);
    expect(slack.code, slack.stderr).toBe(0);
    for (const source of ['discord', 'mattermost']) {
      const ran = await runCli(['import', `pipelines/${source}.yaml`, '--state', join(dir, source)], env);
      expect(ran.code, ran.stderr).toBe(0);
    }
    const exported = await runCli(['export', '--pipeline', 'pipelines/nightly-analytics.yaml', '--to', join(dir, 'out'), '--date', 'today'], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/succeeded/);
  });
});
