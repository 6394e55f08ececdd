import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeFailure } from '../../src/cli/failure.js';
import { runImport } from '../../src/index.js';
import { isChatportError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { captureLogs } from '../api/support.js';
import { setUpGeneratedRun, startImportFixture, type ImportFixture } from './support.js';

/**
 * A run whose report cannot be written (a full disk: the report's temporary file is /dev/full) must still
 * let go of its state folder, or another host waits for the lock's staleness (exit 75 meanwhile); and the
 * run's own failure stays the one that decides the exit code.
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

function setUp(name: string) {
  return setUpGeneratedRun(f, name, { users: 4, channels: 2, messages: 40 });
}

/** Once the run's folder is known, its report's temporary file is made /dev/full: the write meets ENOSPC. */
function fullDiskForReport(tmpFiles: string[]) {
  return (runDir: string) => {
    const tmp = join(runDir, `report.json.${process.pid}.tmp`);
    tmpFiles.push(tmp);
    mkdirSync(runDir, { recursive: true });
    symlinkSync('/dev/full', tmp);
  };
}

it('a run that succeeds but cannot write its report: 74 (a full disk), the state folder unlocked, and the next run ends it', async () => {
  const { config, state } = await setUp('report-enospc');
  const tmpFiles: string[] = [];
  const error = await runImport({ config, stateDir: state }, { client: f.client, onRunStarted: fullDiskForReport(tmpFiles) }).then(() => undefined, (e: unknown) => e);
  expect(error).toMatchObject({ code: 'ENOSPC' });
  expect(exitCodeFor(error)).toBe(ExitCode.IO_ERROR);
  expect(existsSync(join(state, 'lock'))).toBe(false);
  // Space again: the unended run resumes, has nothing left to send, and ends with its report.
  for (const tmp of tmpFiles) await rm(tmp, { force: true });
  const resumed = await runImport({ config, stateDir: state }, { client: f.client });
  expect(resumed.status).toBe('succeeded');
  expect(resumed.attempt).toBe(2);
}, 60_000);

it('a run stopped by its own failure that then cannot write its report: the run\'s failure decides the exit, the report\'s is logged beside it', async () => {
  const { config, state } = await setUp('report-enospc-stop');
  const logs = captureLogs();
  const stop = new AbortController();
  const onProgress = (stage: string, counts: { imported: number }) => void (stage === 'channels' && counts.imported > 0 && !stop.signal.aborted && stop.abort());
  const error = await runImport({ config, stateDir: state }, { client: f.client, signal: stop.signal, onProgress, logger: logs.logger, onRunStarted: fullDiskForReport([]) }).then(() => undefined, (e: unknown) => e);
  expect(isChatportError(error) && error.code).toBe('INTERRUPTED');
  expect(exitCodeFor(error)).toBe(ExitCode.SIGTERM);
  expect(existsSync(join(state, 'lock'))).toBe(false);
  const logged = logs.lines.map((l) => JSON.parse(l) as { level: number; msg: string; err?: { code?: string } }).find((l) => l.msg.startsWith('writing the run\'s report failed'));
  expect(logged?.err?.code).toBe('ENOSPC');
  // No report to print or attach: the failure itself says both, on stderr, in --json and the termination log.
  const said = describeFailure(error, { debug: false });
  expect(said.exitCode).toBe(ExitCode.SIGTERM);
  expect(said.text).toMatch(/^chatport: .*interrupted.*; and the run's report \/\S+\/report\.json could not be written: cannot write: no space left on device \(ENOSPC\) — /);
  expect(said.json.error.details).toMatchObject({ reportError: { code: 'ENOSPC', path: expect.stringMatching(/report\.json$/) as string } });
}, 60_000);
