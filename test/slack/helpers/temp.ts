import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A temporary folder removed after the test file. */
export async function useTempDir(prefix = 'chatport-slack-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  return dir;
}
