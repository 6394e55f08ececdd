/**
 * `--incremental` with no whole day due exits 99 (skip). In a pod the termination log is what Kubernetes
 * shows for the ended container, so it says so too, as every other ending of an export does.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { saveIncrementalState } from '../../src/pipeline/export/incremental.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { runCli } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'chatport-nothing-to-do-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a run with no whole day due writes a nothing-to-do summary to the termination log', async () => {
  const root = resolve(dir, 'out');
  const state = join(dir, 'state');
  const now = Date.parse('2026-11-22T15:00:00Z');
  // The last run published up to today 00:00Z: nothing is due before tomorrow.
  await saveIncrementalState(state, { to: root, format: 'csv', datasets: ['messages'] }, { sinceMs: Date.parse('2026-11-21T00:00:00Z'), untilMs: Date.parse('2026-11-22T00:00:00Z') }, 'last', now);
  const log = join(dir, 'termination-log');
  writeFileSync(log, '');
  // The API is never called: nothing is due.
  const env = { CHATPORT_API_URL: 'http://127.0.0.1:9', CHATPORT_CLIENT_ID: 'id', CHATPORT_CLIENT_SECRET: 'secret', CHATPORT_TERMINATION_LOG: log };
  const result = await runCli(['export', 'messages', '--to', root, '--format', 'csv', '--incremental', '--state', state], env, undefined, () => now);
  expect(result.exitCode).toBe(ExitCode.NOTHING_TO_DO);
  expect(JSON.parse(readFileSync(log, 'utf8'))).toMatchObject({ command: 'export', status: 'nothing-to-do', exitCode: ExitCode.NOTHING_TO_DO });
});
