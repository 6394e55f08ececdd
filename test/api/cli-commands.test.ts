import type { Int64 } from '../../src/shared/int64.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram, mapCommanderError } from '../../src/cli/program.js';
import { resolveClientConfig } from '../../src/cli/client-options.js';
import { ConfigError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { captureLogs, startApiTestBed, writeUsersFile, type ApiTestBed } from './support.js';

let bed: ApiTestBed;
const logs = captureLogs();

beforeAll(async () => {
  bed = await startApiTestBed({ jobs: { minDurationMs: 20 } });
});

afterAll(async () => {
  logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

/** Runs one command line in-process, as src/cli/main.ts would; returns stdout and the exit code. */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ out: string; exit: number; error?: unknown }> {
  let out = '';
  const stdout = { write: (s: string) => ((out += s), true) } as unknown as NodeJS.WritableStream;
  const program = createProgram({
    version: '0.0.0-test',
    stdout,
    stderr: stdout,
    env: { CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret, ...env },
    logger: logs.logger,
    signal: new AbortController().signal,
    setExitCode: () => undefined,
  });
  try {
    await program.parseAsync(['node', 'chatport', ...args]);
    return { out, exit: 0 };
  } catch (raw) {
    const error = mapCommanderError(raw);
    return { out, exit: exitCodeFor(error), error };
  }
}

describe('chatport ping', () => {
  it('prints the scopes of the token and the API version', async () => {
    const { out, exit } = await run(['ping', '--json']);
    expect(exit).toBe(0);
    const result = JSON.parse(out) as { apiVersion: string; scopes: string[]; missingScopes: string[]; application: { id: number } };
    expect(result.apiVersion).toBe('2.112.3');
    expect(result.scopes).toContain('read:job');
    expect(result.missingScopes).toEqual([]);
    expect(result.application.id).toBeTypeOf('number');
    const human = await run(['ping']);
    expect(human.out).toContain('version 2.112.3');
    expect(human.out).toContain('create:user');
  });

  it('with a token lacking read:application still checks the credentials', async () => {
    const token = bed.sandbox.issueToken({ scopes: ['read:job'] });
    const { out, exit } = await run(['ping', '--json'], { CHATPORT_CLIENT_ID: '', CHATPORT_CLIENT_SECRET: '', CHATPORT_ACCESS_TOKEN: token });
    expect(exit).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ auth: 'static', scopes: null, application: null, apiVersion: '2.112.3' });
    logs.expectNoSecrets([token]);
  });

  it('exits 77 on refused credentials and 78 without configuration', async () => {
    expect((await run(['ping'], { CHATPORT_CLIENT_SECRET: 'not-the-secret' })).exit).toBe(ExitCode.AUTH);
    expect((await run(['ping'], { CHATPORT_API_URL: '' })).exit).toBe(ExitCode.CONFIG);
  });
});

describe('chatport jobs', () => {
  let jobId: Int64;
  beforeAll(async () => {
    jobId = (await bed.client.imports.upload('users', { path: writeUsersFile(3, 'cli').path })).id;
  });

  it('wait, get and list', async () => {
    const waited = await run(['jobs', 'wait', String(jobId), '--interval', '0.01', '--json']);
    expect(waited.exit).toBe(0);
    expect(JSON.parse(waited.out)).toMatchObject({ id: jobId, state: 'FINISHED' });
    const got = await run(['jobs', 'get', String(jobId)]);
    expect(got.out.split('\n')[1]).toMatch(new RegExp(`^${jobId}\\tUSER_IMPORT\\tFINISHED\\t`));
    const listed = JSON.parse((await run(['jobs', 'list', '--json'])).out) as Array<{ id: number }>;
    expect(listed.map((j) => j.id)).toContain(jobId);
    expect(JSON.parse((await run(['jobs', 'list', '--running', '--json'])).out)).toEqual([]);
  });

  it('wait exits 75 at the deadline, naming the job, and 3 when the job FAILED', async () => {
    bed.sandbox.setJobOptions({ stuck: true });
    const stuck = (await bed.client.imports.upload('users', { path: writeUsersFile(1, 'cli-stuck').path })).id;
    const late = await run(['jobs', 'wait', String(stuck), '--timeout', '0.2', '--interval', '0.05']);
    expect(late.exit).toBe(ExitCode.TEMPORARY);
    expect((late.error as Error).message).toContain(`job ${stuck}`);
    bed.sandbox.setJobOptions({ stuck: false, failProbability: 1 });
    const failing = (await bed.client.imports.upload('users', { path: writeUsersFile(1, 'cli-fail').path })).id;
    const failed = await run(['jobs', 'wait', String(failing), '--interval', '0.01', '--json']);
    expect(failed.exit).toBe(ExitCode.REMOTE_JOB_FAILED);
    expect(JSON.parse(failed.out)).toMatchObject({ id: failing, state: 'FAILED' });
    bed.sandbox.setJobOptions({ failProbability: 0 });
  });

  it('a missing scope exits 77 and names the scope; a bad id is a usage error', async () => {
    const token = bed.sandbox.issueToken({ scopes: ['read:application'] });
    const denied = await run(['jobs', 'get', String(jobId)], { CHATPORT_CLIENT_ID: '', CHATPORT_CLIENT_SECRET: '', CHATPORT_ACCESS_TOKEN: token });
    expect(denied.exit).toBe(ExitCode.AUTH);
    expect((denied.error as Error).message).toContain('read:job');
    expect((await run(['jobs', 'get', 'abc'])).exit).toBe(ExitCode.USAGE);
  });
});

describe('resolveClientConfig', () => {
  it('prefers flags, then the environment, and defaults the token URL to the API origin', () => {
    const config = resolveClientConfig({ apiUrl: 'https://chat.example.com/api/', clientId: 'flag-id' }, { CHATPORT_API_URL: 'http://ignored', CHATPORT_CLIENT_ID: 'env-id', CHATPORT_CLIENT_SECRET: 'env-secret-value' });
    expect(config).toEqual({
      apiUrl: 'https://chat.example.com/api',
      auth: { kind: 'client-credentials', tokenUrl: 'https://chat.example.com/oauth/token', clientId: 'flag-id', clientSecret: 'env-secret-value' },
    });
  });

  it('takes an access token and a path prefix', () => {
    expect(resolveClientConfig({ pathPrefix: '/v1' }, { CHATPORT_API_URL: 'http://h:1', CHATPORT_ACCESS_TOKEN: 'tok-123456' })).toEqual({
      apiUrl: 'http://h:1',
      pathPrefix: '/v1',
      auth: { kind: 'static', accessToken: 'tok-123456' },
    });
  });

  it('returns a ConfigError naming what to set', () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{}, /CHATPORT_API_URL/],
      [{ CHATPORT_API_URL: 'ftp://x' }, /not an http\(s\) URL/],
      [{ CHATPORT_API_URL: 'http://h' }, /CHATPORT_CLIENT_ID and CHATPORT_CLIENT_SECRET.*CHATPORT_ACCESS_TOKEN/],
      [{ CHATPORT_API_URL: 'http://h', CHATPORT_CLIENT_ID: 'id' }, /CHATPORT_CLIENT_SECRET is not/],
      [{ CHATPORT_API_URL: 'http://h', CHATPORT_CLIENT_ID: 'id', CHATPORT_CLIENT_SECRET: 'secret-x', CHATPORT_TOKEN_URL: 'nope' }, /token URL/],
    ];
    for (const [env, message] of cases) {
      const result = resolveClientConfig({}, env);
      expect(result).toBeInstanceOf(ConfigError);
      expect((result as ConfigError).message).toMatch(message);
      expect(exitCodeFor(result)).toBe(ExitCode.CONFIG);
    }
  });
});
