import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, runCli, startImportFixture, type ImportFixture } from '../import/support.js';

/** `chatport functions` and `chatport runtime` as a new user runs them against the sandbox. */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture({ seed: 'demo' });
});
afterAll(() => f.close());

const cli = (...args: string[]) => runCli(args, f.env);

// Every test runs several CLI processes through tsx: 30 s was too short beside other tests on a loaded 2-core machine.
describe('chatport functions and chatport runtime', { timeout: 120_000 }, () => {
  it('deploy user.sent.message handler.ts creates the function, then a second deploy makes version 2; it fires on a sent message', async () => {
    const file = join(f.dir, 'handler.ts');
    await writeFile(file, 'async function handleEvent(event: { message: { body: string } }): Promise<string> {\n  return `seen: ${event.message.body}` + (process.env.SUFFIX ?? "");\n}\n');
    const first = await cli('functions', 'deploy', 'user.sent.message', file);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^created function \d+ \(handler, user\.sent\.message\): version 1 is current/);
    const second = await cli('functions', 'deploy', 'user.sent.message', file, '--json');
    const deployed = JSON.parse(second.stdout) as { function: { id: number; created: boolean }; version: { versionNumber: number } };
    expect(deployed).toMatchObject({ function: { created: false }, version: { versionNumber: 2 } });

    const env = await cli('runtime', 'env', 'set', 'SUFFIX=!');
    expect(env.code, env.stderr).toBe(0);
    expect(JSON.parse(env.stdout).environmentVariables).toEqual({ SUFFIX: '!' });

    await f.client.channels.sendMessage(1, { type: 'TEXT', body: 'hello', user: { username: 'alice' } });
    let invocations: Array<{ status: string; result?: { payload?: unknown } }> = [];
    while (invocations[0]?.status !== 'SUCCEEDED') {
      invocations = JSON.parse((await cli('functions', 'invocations', String(deployed.function.id), '--json')).stdout) as typeof invocations;
      if (invocations[0]?.status === 'FAILED') break;
    }
    expect(invocations[0]).toMatchObject({ status: 'SUCCEEDED', versionNumber: 2, result: { payload: 'seen: hello!' } });

    const list = await cli('functions', 'list');
    expect(list.stdout).toMatch(new RegExp(`${deployed.function.id}\\s+user\\.sent\\.message\\s+v2\\s+enabled\\s+handler`));
  });

  it('runtime deps set, init-script and show; usage errors exit 64', async () => {
    expect((await cli('runtime', 'deps', 'set', 'lodash@4.17.21')).code).toBe(0);
    const init = join(f.dir, 'init.js');
    await writeFile(init, 'const started = "yes";\n');
    expect((await cli('runtime', 'init-script', init)).code).toBe(0);
    const shown = JSON.parse((await cli('runtime', 'show', '--json')).stdout) as { dependencies: Array<{ name: string }>; initializationScript: { script: string } };
    expect(shown.dependencies.map((d) => d.name)).toEqual(['@chatport/functions-sdk', 'lodash']);
    expect(shown.initializationScript.script).toBe('const started = "yes";\n');
    expect((await cli('runtime', 'deps', 'set', 'lodash')).code).toBe(64);
    expect((await cli('functions', 'deploy', 'user.did.nothing', init)).code).toBe(64);
    expect((await cli('functions', 'invocations', 'abc')).code).toBe(64);
    expect(await all(f.client.runtime.functions())).toHaveLength(1);
  });
});
