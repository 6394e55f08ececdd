import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatportClient } from '../../src/api/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { ChatportError } from '../../src/shared/errors.js';
import { messagesPipeline, runCli, startImportFixture, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** The fixture's client, whose verification export start first runs `before` (then starts it, or throws what `before` throws). */
function clientStartingExport(before: () => Promise<void>): ChatportClient {
  const exports = Object.create(f.client.exports) as ChatportClient['exports'];
  exports.start = async (...args: Parameters<ChatportClient['exports']['start']>) => {
    await before();
    return f.client.exports.start(...args);
  };
  return Object.assign(Object.create(f.client) as ChatportClient, { exports });
}

async function importOne(p: string) {
  const dir = join(f.dir, p);
  await writeInput(dir, 'users.csv', `id,username\nu0,${p}-ann\n`);
  await writeInput(dir, 'channels.csv', `key,name,members\nc0,${p}-general,${p}-ann\n`);
  await writeInput(dir, 'messages.csv', `id,channel,author,text,tag\nm1,c0,${p}-ann,one,t\n`);
  const { config, path } = await writePipeline(dir, messagesPipeline(p, 'insert'));
  return { config, path, state: join(dir, 'state') };
}

describe('chatport status after an import whose verification did not end well', () => {
  it('while verification runs, report.json says it is not done: a run killed then is not read as verified success, exit 0', async () => {
    const { config, state } = await importOne('verify-killed');
    let during: RunReport | undefined;
    const client = clientStartingExport(async () => {
      const [run] = await readdir(join(state, 'runs'));
      during = JSON.parse(await readFile(join(state, 'runs', run!, 'report.json'), 'utf8')) as RunReport;
    });
    const report = await runImport({ config, stateDir: state, verify: {} }, { client });
    expect(report.verification?.status).toBe('exact');
    expect(during?.verification).toMatchObject({ status: 'not-done', error: { code: 'VERIFICATION_UNFINISHED' } });
  });

  it('a verification that failed shows the exit code the run ended with, not 0', { timeout: 60_000 }, async () => {
    const { config, path, state } = await importOne('verify-failed');
    const client = clientStartingExport(() => Promise.reject(new ChatportError('the platform is down', { code: 'API_SERVER' })));
    await runImport({ config, stateDir: state, verify: {} }, { client }).catch(() => undefined);
    const status = await runCli(['status', path, '--state', state]);
    expect(status.stdout).toMatch(/^last report: succeeded, verification not-done \(API_SERVER\), 3 imported, 0 rejected, exit 69 /m);
  });
});
