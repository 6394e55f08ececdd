import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { describeFailure } from '../../src/cli/failure.js';
import { ConfigError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';

/** A real ENOSPC from the kernel: /dev/full refuses every write with "no space left on device". */
async function diskFull(): Promise<unknown> {
  return writeFile('/dev/full', 'x').then(() => new Error('/dev/full took a write'), (e: unknown) => e);
}

describe('describeFailure: one line saying what failed, where, and what to do', () => {
  it('a full disk is IOERR (74), without a stack', async () => {
    const error = await diskFull();
    expect(exitCodeFor(error)).toBe(ExitCode.IO_ERROR);
    const out = describeFailure(error, { debug: false });
    expect(out.text).toBe('chatport: cannot write: no space left on device (ENOSPC) — free space or repair the disk that holds it, then run the same command again\n');
    expect(out.json.error).toMatchObject({ code: 'ENOSPC', exitCode: 74 });
  });

  it('--debug adds the stack to an operational failure', async () => {
    const out = describeFailure(new ConfigError('stages.users.key: required'), { debug: true });
    expect(out.exitCode).toBe(ExitCode.CONFIG);
    expect(out.text).toMatch(/^chatport: stages\.users\.key: required\nConfigError: stages\.users\.key: required\n\s+at /);
  });

  it('anything else is a bug (exit 1): said so, with its stack, to report it', () => {
    const out = describeFailure(new TypeError("Cannot read properties of undefined (reading 'id')"), { debug: false });
    expect(out.exitCode).toBe(ExitCode.INTERNAL);
    expect(out.text).toMatch(/^chatport: internal error: Cannot read properties .* — this is a bug in chatport; please report it with the lines above\nTypeError: .*\n\s+at /);
    expect(out.json.error).toMatchObject({ code: 'INTERNAL', exitCode: 1 });
  });
});
