import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { isChatportError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';

/** A library caller (a test suite, a rehearsal service) starting a sandbox on a port that is taken. */
const savedTmpdir = process.env.TMPDIR;
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
});

describe('startSandbox on a port another process holds', () => {
  it('rejects with a ChatportError (exit 75, not 1: no bug) and leaves no folder of its own behind', async () => {
    const holder = await startSandbox({ port: 0 });
    try {
      // Its own temp root: what the failed start made (its exports folder) is counted there alone.
      process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'chatport-listen-failure-'));
      const port = Number(new URL(holder.url).port);
      const error = await startSandbox({ port }).then(() => undefined, (e: unknown) => e);
      expect(isChatportError(error) && error.code).toBe('SANDBOX_PORT_IN_USE');
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
      expect(exitCodeFor(error)).toBe(ExitCode.TEMPORARY);
      expect(readdirSync(process.env.TMPDIR)).toEqual([]);
    } finally {
      await holder.close();
    }
  });

  it('a host that is not an address of this machine is a configuration error (exit 78)', async () => {
    const error = await startSandbox({ port: 0, host: '192.0.2.1' }).then(() => undefined, (e: unknown) => e);
    expect(exitCodeFor(error)).toBe(ExitCode.CONFIG);
    expect((error as Error).message).toContain('192.0.2.1 is not an address of this machine');
  });
});
