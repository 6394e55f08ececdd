import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram, mapCommanderError } from '../../src/cli/program.js';
import { parseFaultSpec } from '../../src/sandbox/fault-spec.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { InterruptedError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { createLogger } from '../../src/shared/logger.js';

// `chatport api`, `functions` and `runtime` under a 429 that keeps coming: a SIGTERM (or Ctrl-C) stops the
// waits and exits 143, as every other command does, rather than retrying for minutes and ending 75 (or
// doing the write the operator just cancelled).
let sandbox: SandboxHandle;

beforeAll(async () => {
  sandbox = await startSandbox({ faults: [parseFaultSpec('GET **=status:429,retry-after=2')] });
});

afterAll(async () => {
  await sandbox.close();
});

async function runStopped(args: string[]): Promise<number> {
  const stop = new AbortController();
  const out = { write: () => true } as unknown as NodeJS.WritableStream;
  const program = createProgram({
    version: '0.0.0-test',
    stdout: out,
    stderr: out,
    env: { CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: sandbox.credentials.clientSecret },
    logger: createLogger({ level: 'silent' }),
    signal: stop.signal,
    setExitCode: () => undefined,
  });
  sandbox.clearRequests();
  // The signal arrives once the platform has answered 429: the command is then waiting to retry.
  const poll = setInterval(() => {
    if (sandbox.requests().some((r) => r.status === 429)) stop.abort(new InterruptedError('SIGTERM'));
  }, 10);
  try {
    await program.parseAsync(['node', 'chatport', ...args]);
    return 0;
  } catch (raw) {
    return exitCodeFor(mapCommanderError(raw));
  } finally {
    clearInterval(poll);
  }
}

describe('a signal stops the scripting commands', () => {
  it.each([[['api', 'GET', '/users']], [['functions', 'list']], [['runtime', 'show']]])('%j exits 143 while a 429 is waited out', async (args) => {
    expect(await runStopped(args)).toBe(ExitCode.SIGTERM);
    // No request after the stop: one 429, then nothing.
    expect(sandbox.requests().filter((r) => r.method === 'GET')).toHaveLength(1);
  }, 20_000);
});
