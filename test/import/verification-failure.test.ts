/**
 * An import whose data went in but whose verification the platform failed: the messages export FAILED, or
 * `POST /analytics/messages` answered 5xx past the retries. The run still prints and writes its report,
 * with the verification marked not done and why, and exits with the platform-failure code (75 / 69).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { generateCsvs, generatedPipeline, runCli, startImportFixture, writeCsvs, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
/** How many of the messages exports started (since the requests were last cleared) FAIL; the rest, and every import job, finish. */
let failingExports = 0;
const exportStarts = () => f.sandbox.requests().filter((r) => r.method === 'POST' && r.path === '/analytics/messages').length;

beforeAll(async () => {
  // The sandbox draws once per job (failProbability 0.5): an export job runs after its start was recorded,
  // so the draw knows which export it is; import jobs all come before the first export.
  f = await startImportFixture({ random: () => (exportStarts() > 0 && exportStarts() <= failingExports ? 0 : 0.99) });
  f.sandbox.setJobOptions({ failProbability: 0.5 });
});
afterAll(() => f.close());
beforeEach(() => {
  failingExports = 0;
  f.sandbox.setFaults([]);
  f.sandbox.clearRequests();
});

async function smallPipeline(name: string) {
  const dir = join(f.dir, name);
  await writeCsvs(dir, generateCsvs({ users: 2, channels: 1, messages: 5 }, `${name}-`));
  return { dir, ...(await writePipeline(dir, generatedPipeline(name))) };
}

it('a messages export that FAILED once is started again, and the import verifies', async () => {
  const { dir, config } = await smallPipeline('vf-once');
  failingExports = 1;
  const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
  expect(report.verification?.status).toBe('exact');
  expect(exportStarts()).toBe(2);
});

describe.each([
  { why: 'the messages export FAILED twice', code: ExitCode.TEMPORARY, error: 'VERIFY_EXPORT_FAILED', fail: () => void (failingExports = 2) },
  { why: 'POST /analytics/messages answers 500', code: ExitCode.UNAVAILABLE, error: 'API_SERVER', fail: () => f.sandbox.setFaults([{ method: 'POST', path: '/analytics/messages', fault: { kind: 'status', status: 500 } }]) },
])('verification cannot be done: $why', ({ code, error, fail }) => {
  it(`prints the report with the verification not done, writes it, and exits ${code}`, async () => {
    const { dir, path } = await smallPipeline(`vf-${error.toLowerCase()}`);
    fail();
    const terminationLog = join(dir, 'termination-log');
    await writeFile(terminationLog, '');
    const ran = await runCli(['import', path, '--state', join(dir, 'state')], { ...f.env, CHATPORT_TERMINATION_LOG: terminationLog });
    expect({ code: ran.code, stderr: ran.stderr }).toMatchObject({ code });
    // The pod's summary says what the report says: the data is in, the verification was not done.
    // It names the run to resume or read and what it got done, as a finished run's summary does.
    const runId = ran.stdout.match(/^run (\S+)/m)?.[1];
    expect(JSON.parse(await readFile(terminationLog, 'utf8'))).toMatchObject({
      status: 'succeeded', verification: 'not-done', exitCode: code, error: { code: error }, runId, totals: { read: 8, imported: 8, pending: 0, balanced: true },
    });
    expect(ran.stdout).toMatch(/^run (\S+) \(vf-[a-z_]+, attempt 1\): succeeded$/m);
    expect(ran.stdout).toMatch(/^messages +5 +5 /m);
    expect(ran.stdout).toMatch(new RegExp(`^verification: NOT DONE \\(the import itself is complete\\) — ${error}: `, 'm'));
    const runDir = join(dir, 'state', 'runs', ran.stdout.match(/^run (\S+)/m)![1]!);
    const written = JSON.parse(await readFile(join(runDir, 'report.json'), 'utf8')) as RunReport;
    expect(written).toMatchObject({ status: 'succeeded', totals: { imported: 8 }, verification: { status: 'not-done', error: { code: error, exitCode: code } } });
    expect(written.error).toBeUndefined();
    expect(await readFile(join(runDir, 'report.html'), 'utf8')).toContain(`Not done (the import itself is complete): <b>${error}</b>`);
  }, 60_000);

  it(`--json prints the report (not only an error object) and exits ${code}`, async () => {
    const { dir, path } = await smallPipeline(`vf-json-${error.toLowerCase()}`);
    fail();
    const ran = await runCli(['import', path, '--state', join(dir, 'state'), '--json'], f.env);
    expect({ code: ran.code, stderr: ran.stderr }).toMatchObject({ code });
    const printed = JSON.parse(ran.stdout) as RunReport;
    expect(printed).toMatchObject({ status: 'succeeded', totals: { imported: 8, balanced: true }, verification: { status: 'not-done', error: { code: error, exitCode: code } } });
    expect(printed.verification).toEqual(JSON.parse(await readFile(join(printed.runDir, 'report.json'), 'utf8')).verification);
  }, 60_000);
});

it('a system error (a file in the way of the state folder) is named in the termination log by its own code and words, not as INTERNAL (a bug)', async () => {
  const { dir, path } = await smallPipeline('vf-state-in-the-way');
  await writeFile(join(dir, 'file'), '');
  const terminationLog = join(dir, 'termination-log');
  await writeFile(terminationLog, '');
  const ran = await runCli(['import', path, '--state', join(dir, 'file', 'state')], { ...f.env, CHATPORT_TERMINATION_LOG: terminationLog });
  expect(ran.code).toBe(ExitCode.CANT_CREATE);
  expect(JSON.parse(await readFile(terminationLog, 'utf8'))).toMatchObject({
    status: 'failed', exitCode: ExitCode.CANT_CREATE, error: { code: 'ENOTDIR', message: expect.stringMatching(/^cannot \w+ .*\/file\/state.*: not a directory \(ENOTDIR\)$/) },
  });
});
