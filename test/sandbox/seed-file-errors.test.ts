/** `chatport sandbox --seed <file>` with a file a user got wrong: a configuration error naming it, not a bug. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { isChatportError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { startTestSandbox } from './helpers.js';

it('a seed file that is not JSON stops the start with exit 78, naming the file and what is wrong', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'sandbox-seed-')), 'seed.json');
  writeFileSync(path, '{ users: [] }');
  const error = await startTestSandbox({ seed: path }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isChatportError(error)).toBe(true);
  expect(exitCodeFor(error)).toBe(ExitCode.CONFIG);
  expect((error as Error).message).toMatch(new RegExp(`^sandbox seed ${path}: not JSON: Expected property name`));
});

it('a seed that does not exist is missing input (66), naming the file it looked for', async () => {
  const error = await startTestSandbox({ seed: 'no-such-fixture' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(exitCodeFor(error)).toBe(ExitCode.INPUT_MISSING);
  expect((error as Error).message).toMatch(/^sandbox seed 'no-such-fixture': cannot read \S+fixtures\/sandbox\/no-such-fixture\.json: ENOENT: no such file or directory/);
});
