import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/options.js';
import { ROOT, fencedBlockAfter } from './readme.js';

let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

describe("README's library API example", () => {
  const file = readFileSync(join(ROOT, 'examples/library.ts'), 'utf8');

  it('is examples/library.ts, word for word (tsc type-checks that file with the project)', () => {
    expect(fencedBlockAfter('## Library API', 'ts')).toBe(file);
  });

  it('runs against the sandbox and reports the import it made', { timeout: 60_000 }, async () => {
    const env = { PATH: process.env.PATH, CHATPORT_API_URL: sandbox.url, CHATPORT_CLIENT_ID: sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: sandbox.credentials.clientSecret };
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/library.ts'], { cwd: ROOT, env });
    expect(stdout).toMatch(/^status completed-with-rejects: read 26, imported 16, rejected 9, skipped 1$/m);
    expect(stdout).toMatch(/^verification: exact; rejects in \S+rejects\.ndjson$/m);
  });
});
