/** `chatport export --pipeline` with a file a new user gets wrong: the exit code and message README promises. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'chatport-export-pipeline-'));

it('a pipeline file that does not exist is missing input (66), as for import, naming the file', async () => {
  const missing = join(dir, 'nightly.yaml');
  const result = await runCli(['export', '--pipeline', missing], {});
  expect(result.exitCode).toBe(66);
  const message = (result.error as Error).message;
  expect(message).toContain(`pipeline file ${missing} cannot be read`);
  expect(message).toMatch(/no such file or directory/);
});
