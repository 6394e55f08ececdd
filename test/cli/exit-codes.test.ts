import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/options.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { chatportEnv, generateCsvs, generatedPipeline, runCli, startImportFixture, writeInput, type ImportFixture } from '../import/support.js';
import { minimalExportEntries, writeRawZip } from '../slack/helpers/zip-writer.js';

const EXAMPLE = join(import.meta.dirname, '../../pipelines/csv-example.yaml');
const CLI_ENTRY = join(import.meta.dirname, '../../src/cli/main.ts');

let f: ImportFixture;
/** A sandbox whose import jobs all FAIL (exit 3). */
let failing: SandboxHandle;
/** A web server answering every request with an HTML page: not the Management API. */
let html: Server;
let htmlUrl: string;

beforeAll(async () => {
  f = await startImportFixture();
  failing = await startSandbox({ port: 0, jobs: { failProbability: 1 } });
  html = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>Welcome</body></html>'));
  await new Promise<void>((resolve) => html.listen(0, '127.0.0.1', resolve));
  htmlUrl = `http://127.0.0.1:${(html.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => html.close(resolve));
  await failing.close();
  await f.close();
});

/** A small valid pipeline over generated CSVs, in its own folder. */
async function smallPipeline(name: string): Promise<string> {
  const dir = join(f.dir, name);
  for (const [file, text] of Object.entries(generateCsvs({ users: 2, channels: 1, messages: 5 }, `${name}-`))) await writeInput(dir, `${file}.csv`, text);
  return writeInput(dir, 'pipeline.yaml', generatedPipeline(name));
}

interface Case {
  why: string;
  code: number;
  /** Arguments (and environment) of the run, prepared in the test's folders. */
  setup: () => Promise<{ args: string[]; env?: Record<string, string> }>;
  /** What the readable error (its line, and a pipeline file's problems below it) says. */
  says?: RegExp;
}

const cases: Case[] = [
  { why: 'success', code: ExitCode.OK, setup: async () => ({ args: ['ping'] }) },
  { why: 'records rejected', code: ExitCode.COMPLETED_WITH_REJECTS, setup: async () => ({ args: ['import', EXAMPLE, '--state', join(f.dir, 'rejects'), '--no-verify'] }) },
  {
    why: 'a remote job FAILED', code: ExitCode.REMOTE_JOB_FAILED, says: /FAILED/,
    setup: async () => {
      const file = await writeInput(f.dir, 'one-user.json', JSON.stringify([{ name: 'jobfail', displayName: 'J', isGuest: false, idempotencyKey: 'k1' }]));
      const client = createClient({ apiUrl: failing.url, auth: { kind: 'client-credentials', tokenUrl: failing.tokenUrl, ...failing.credentials }, retry: 'rapid' });
      const job = await client.imports.upload('users', { path: file }).finally(() => client.close());
      return { args: ['jobs', 'wait', String(job.id)], env: sandboxEnv(failing) };
    },
  },
  { why: 'bare chatport prints the help', code: ExitCode.USAGE, setup: async () => ({ args: [] }) },
  // Node 20's recursive mkdir never returns under /proc: refused before it is tried.
  { why: 'a state folder under /proc', code: ExitCode.CONFIG, says: /state folder \/proc\/chatport-exit-codes is under \/proc, a pseudo file system/, setup: async () => ({ args: ['import', EXAMPLE, '--dry-run', '--state', '/proc/chatport-exit-codes'] }) },
  { why: 'a missing argument', code: ExitCode.USAGE, setup: async () => ({ args: ['import'] }) },
  {
    why: 'a corrupt gzip stream', code: ExitCode.DATA_INVALID, says: /users\.csv\.gz.*cannot be read/,
    setup: async () => {
      const path = await smallPipeline('gz');
      await writeFile(join(path, '..', 'users.csv.gz'), Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.alloc(64, 0x55)]));
      await writeFile(path, (await readFile(path, 'utf8')).replace('users.csv', 'users.csv.gz'));
      return { args: ['import', path, '--dry-run', '--state', join(f.dir, 'gz-state')] };
    },
  },
  {
    why: 'a Slack zip with an escaping path', code: ExitCode.DATA_INVALID, says: /climbs out of the export/,
    setup: async () => ({ args: ['migrate', 'slack', await writeRawZip(f.dir, 'escape.zip', minimalExportEntries([{ name: '../evil.json', data: '[]' }])), '--dry-run', '--state', join(f.dir, 'escape-state')] }),
  },
  {
    why: 'a Slack zip bomb', code: ExitCode.DATA_INVALID, says: /compression ratio/,
    setup: async () => ({ args: ['migrate', 'slack', await writeRawZip(f.dir, 'bomb.zip', minimalExportEntries([{ name: 'general/2020-01-01.json', data: Buffer.alloc(4 * 1024 * 1024) }])), '--dry-run', '--state', join(f.dir, 'bomb-state')] }),
  },
  { why: 'a missing pipeline file', code: ExitCode.INPUT_MISSING, says: /nope\.yaml cannot be read/, setup: async () => ({ args: ['import', join(f.dir, 'nope.yaml')] }) },
  { why: 'jobs get of an unknown id', code: ExitCode.INPUT_MISSING, says: /404|not found/i, setup: async () => ({ args: ['jobs', 'get', '987654'] }) },
  {
    why: 'a folder that is not a Slack export', code: ExitCode.INPUT_MISSING, says: /is this a Slack export\?/,
    setup: async () => {
      await mkdir(join(f.dir, 'not-slack'), { recursive: true });
      return { args: ['migrate', 'slack', join(f.dir, 'not-slack'), '--dry-run', '--state', join(f.dir, 'not-slack-state')] };
    },
  },
  { why: 'an API answering HTML', code: ExitCode.UNAVAILABLE, says: /not JSON.*--api-url/, setup: async () => ({ args: ['ping', '--api-url', htmlUrl, '--token-url', `${htmlUrl}/oauth/token`] }) },
  {
    why: 'a state folder that cannot be created', code: ExitCode.CANT_CREATE, says: /cannot mkdir .*not a directory \(ENOTDIR\).*--state/,
    setup: async () => {
      await writeFile(join(f.dir, 'a-file'), 'not a folder');
      return { args: ['import', await smallPipeline('cantcreat'), '--state', join(f.dir, 'a-file', 'state')] };
    },
  },
  {
    why: 'a damaged journal', code: ExitCode.IO_ERROR, says: /journal .* is damaged at line 1/,
    setup: async () => {
      const path = await smallPipeline('journal');
      const state = join(f.dir, 'journal-state');
      expect((await runCli(['import', path, '--state', state, '--no-verify'], f.env)).code).toBe(0);
      const journal = join(state, 'journal.ndjson');
      await writeFile(journal, `{"t": "run-started", broken\n${await readFile(journal, 'utf8')}`);
      return { args: ['import', path, '--state', state] };
    },
  },
  {
    why: 'another run holds the state folder', code: ExitCode.TEMPORARY, says: /another chatport run .*run the same command again later/,
    setup: async () => {
      const state = join(f.dir, 'locked-state');
      await mkdir(state, { recursive: true });
      await writeFile(join(state, 'lock'), String(process.pid)); // this test process: alive
      return { args: ['import', await smallPipeline('locked'), '--state', state] };
    },
  },
  { why: 'a wrong client secret', code: ExitCode.AUTH, setup: async () => ({ args: ['ping'], env: { CHATPORT_CLIENT_SECRET: 'wrong' } }) },
  {
    why: 'a YAML alias bomb', code: ExitCode.CONFIG, says: /Excessive alias count/,
    setup: async () => {
      const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
      for (const [prev, name] of [['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'e'], ['e', 'f']] as const) levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
      return { args: ['validate', await writeInput(f.dir, 'alias-bomb.yaml', `${levels.join('\n')}\nname: bomb\n`)] };
    },
  },
];

function sandboxEnv(s: SandboxHandle): Record<string, string> {
  return { CHATPORT_API_URL: s.url, CHATPORT_CLIENT_ID: s.credentials.clientId, CHATPORT_CLIENT_SECRET: s.credentials.clientSecret };
}


describe('every documented exit code, from the real CLI', () => {
  it.each(cases)('$code: $why', async ({ code, setup, says }) => {
    const { args, env } = await setup();
    const result = await runCli(args, { ...f.env, ...chatportEnv(f), ...env });
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code });
    if (code === ExitCode.OK || code === ExitCode.COMPLETED_WITH_REJECTS) return;
    // Never a stack trace: that is for bugs and --debug.
    expect(result.stderr).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
    if (code === ExitCode.USAGE) {
      // Commander's own message and the help, and nothing else.
      expect(result.stderr).toMatch(/Usage: chatport/);
      expect(result.stderr).not.toMatch(/"level"/);
      return;
    }
    const readable = result.stderr.split('\n').filter((l) => l.startsWith('chatport: '));
    expect(readable).toHaveLength(1);
    // A pipeline file's problems follow its line, one a line.
    if (says) expect(result.stderr.slice(result.stderr.indexOf('chatport: '))).toMatch(says);
  }, 60_000);

  it('covers every code the README documents but 1 (a bug), the signals (tested below) and 99 (an incremental export with nothing due, driven in test/export/window.test.ts)', () => {
    const covered = new Set(cases.map((c) => c.code));
    const elsewhere: number[] = [ExitCode.INTERNAL, ExitCode.SIGINT, ExitCode.SIGTERM, ExitCode.NOTHING_TO_DO];
    const documented = Object.values(ExitCode).filter((c) => !elsewhere.includes(c));
    expect(documented.filter((c) => !covered.has(c))).toEqual([]);
  });

  it('--json prints the error as a JSON object on stdout', async () => {
    const result = await runCli(['import', join(f.dir, 'missing.yaml'), '--json'], f.env);
    expect(result.code).toBe(ExitCode.INPUT_MISSING);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'INPUT_MISSING', exitCode: 66, message: expect.stringContaining('missing.yaml cannot be read') } });
  });

  it.each([['SIGINT', ExitCode.SIGINT], ['SIGTERM', ExitCode.SIGTERM]] as const)('%s: exits %i and says that running the same command again resumes', async (signal, code) => {
    const path = await smallPipeline(`signal-${signal}`);
    const state = join(f.dir, `signal-${signal}-state`);
    // Message uploads wait on the server, so the signal arrives while the run is under way.
    f.sandbox.setFaults([{ method: 'POST', path: '/imports/messages', fault: { kind: 'delay', ms: 3_000 } }]);
    f.sandbox.clearRequests();
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', CLI_ENTRY, 'import', path, '--state', state], { env: { ...process.env, ...f.env, CHATPORT_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      while (!f.sandbox.requests().some((r) => r.method === 'POST' && r.path === '/imports/messages')) await new Promise((r) => setTimeout(r, 10));
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(stderr).toMatch(new RegExp(`^chatport: interrupted by ${signal} — run the same command again \\(an import resumes from its saved state\\)$`, 'm'));
    } finally {
      f.sandbox.setFaults([]);
    }
    // Running it again resumes; jobs the first attempt submitted count as submitted in the second too.
    const resumed = await runCli(['import', path, '--state', state, '--json'], f.env);
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as { attempt: number; stages: Record<string, { jobs: { submitted: number; finished: number } }> };
    expect(report.attempt).toBe(2);
    for (const [stage, counts] of Object.entries(report.stages)) expect({ stage, ok: counts.jobs.finished <= counts.jobs.submitted }).toEqual({ stage, ok: true });
  }, 60_000);
});
