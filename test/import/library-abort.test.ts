import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOf, runImport } from '../../src/index.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { isChatportError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { setUpGeneratedRun, startImportFixture, type ImportFixture } from './support.js';

/** A library caller stops a run with its own AbortController, the way any Node API is stopped: `abort()`. */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

function setUp(name: string) {
  return setUpGeneratedRun(f, name, { users: 4, channels: 2, messages: 60 });
}

describe('runImport stopped by a plain AbortController', () => {
  it('mid-run: rejects with an InterruptedError (not exit 1, a bug), keeps the report, and the next run resumes it', async () => {
    const { config, state } = await setUp('lib-abort');
    const stop = new AbortController();
    const onProgress = (stage: string, counts: { imported: number }) => void (stage === 'channels' && counts.imported > 0 && !stop.signal.aborted && stop.abort());
    const error = await runImport({ config, stateDir: state }, { client: f.client, signal: stop.signal, onProgress }).then(() => undefined, (e: unknown) => e);
    expect(isChatportError(error) && error.code).toBe('INTERRUPTED');
    expect(exitCodeFor(error)).toBe(ExitCode.SIGTERM);
    const runDir = (error as { details: { report?: string } }).details.report!;
    const report = JSON.parse(await readFile(join(runDir, 'report.json'), 'utf8')) as RunReport;
    expect(report.status).toBe('interrupted');
    expect(report.error?.code).toBe('INTERRUPTED');
    // The same report, from the error itself (the package's reportOf).
    expect(reportOf(error)).toMatchObject({ runId: report.runId, status: 'interrupted', totals: report.totals });

    const resumed = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
    expect(resumed.runId).toBe(report.runId);
    expect(resumed.status).toBe('succeeded');
    expect(resumed.verification?.status).toBe('exact');
  }, 60_000);

  it('aborted before the call: rejects with an InterruptedError and starts no run', async () => {
    const { config, state } = await setUp('lib-abort-early');
    const stop = new AbortController();
    stop.abort();
    const error = await runImport({ config, stateDir: state }, { client: f.client, signal: stop.signal }).then(() => undefined, (e: unknown) => e);
    expect(isChatportError(error) && error.code).toBe('INTERRUPTED');
    expect(exitCodeFor(error)).toBe(ExitCode.SIGTERM);
    await expect(access(state)).rejects.toThrow(/ENOENT/);
  });
});
