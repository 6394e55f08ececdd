import { getEventListeners } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, runExport, runImport, runValidate, type ExportReport, type RunExportOptions, type StageName, type User } from '../../src/index.js';
import { setUpGeneratedRun, startImportFixture, type ImportFixture } from './support.js';

/**
 * chatport embedded in a long-lived service: one process runs many imports and exports, and each run must
 * leave nothing of itself behind in the host (listeners on the caller's signal, a locked state folder).
 */
let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe("a service's one AbortSignal (its shutdown) passed to many runs", () => {
  it('holds no listener of a run once that run has ended: runImport, runValidate, runExport', async () => {
    const shutdown = new AbortController();
    const { config, state } = await setUpGeneratedRun(f, 'host-signal', { users: 3, channels: 1, messages: 5 });
    await runImport({ config, stateDir: state }, { client: f.client, signal: shutdown.signal });
    expect(abortListeners(shutdown.signal)).toBe(0);
    const platformUsers: User[] = [];
    for await (const user of f.client.users.list()) platformUsers.push(user);
    expect(platformUsers.length).toBeGreaterThanOrEqual(3);
    const validated: StageName[] = Object.keys((await runValidate(config, { signal: shutdown.signal })).stages) as StageName[];
    expect(validated).toContain('users');
    expect(abortListeners(shutdown.signal)).toBe(0);
    const to = await mkdtemp(join(f.dir, 'host-signal-export-'));
    // Typed with the package's own names, as a caller's code names them (`npm run typecheck` checks them).
    const options: RunExportOptions = { datasets: ['users'], to, format: 'csv', date: new Date().toISOString().slice(0, 10), job: { pollIntervalMs: 10 }, signal: shutdown.signal };
    const report: ExportReport = await runExport(options, { client: f.client });
    expect(report.status).toBe('succeeded');
    expect(abortListeners(shutdown.signal)).toBe(0);
  }, 60_000);

  it('holds none either when a run fails', async () => {
    const shutdown = new AbortController();
    const { config } = await setUpGeneratedRun(f, 'host-signal-failed', { users: 3, channels: 1, messages: 5 });
    // A state folder under /proc is refused (ConfigError) after the run has taken the signal.
    await expect(runImport({ config, stateDir: '/proc/chatport-host-signal' }, { client: f.client, signal: shutdown.signal })).rejects.toThrow(/under \/proc/);
    expect(abortListeners(shutdown.signal)).toBe(0);
  });
});

describe('a caller that forgets the client', () => {
  it('gets a ChatportError a service can map to an exit code (64), not a TypeError (1, a bug)', async () => {
    const { config } = await setUpGeneratedRun(f, 'host-no-client', { users: 1, channels: 1, messages: 1 });
    const error = await runImport({ config, stateDir: join(f.dir, 'host-no-client-state') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'USAGE', message: expect.stringContaining('runImport needs deps.client') });
    expect(exitCodeFor(error)).toBe(64);
  });
});

describe('a run that fails as it opens its state folder', () => {
  it('unlocks the folder: once the damaged journal is put back, the next run in the same process runs', async () => {
    const { config, state } = await setUpGeneratedRun(f, 'host-damaged', { users: 3, channels: 1, messages: 5 });
    await runImport({ config, stateDir: state }, { client: f.client });
    const journal = join(state, 'journal.ndjson');
    const whole = await readFile(journal, 'utf8');
    const lines = whole.split('\n');
    await writeFile(journal, [lines[0], '{damaged', ...lines.slice(1)].join('\n'));
    await expect(runImport({ config, stateDir: state }, { client: f.client })).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
    await writeFile(journal, whole);
    await expect(runImport({ config, stateDir: state }, { client: f.client })).resolves.toMatchObject({ status: 'succeeded', attempt: 1 });
  }, 60_000);

  it("unlocks the folder when the caller's onRunStarted throws, and the next run runs", async () => {
    const { config, state } = await setUpGeneratedRun(f, 'host-started-throws', { users: 3, channels: 1, messages: 5 });
    const onRunStarted = () => {
      throw new Error('the caller could not record the run');
    };
    await expect(runImport({ config, stateDir: state }, { client: f.client, onRunStarted })).rejects.toThrow('the caller could not record the run');
    await expect(runImport({ config, stateDir: state }, { client: f.client })).resolves.toMatchObject({ status: 'succeeded' });
  }, 60_000);
});
