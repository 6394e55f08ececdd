/**
 * What goes wrong at night: a download cut midway, an export job that FAILS, a stop signal. The CLI is
 * driven through the real commander program (the command function), with the sandbox behind it.
 */
import { compareInt64 } from '../../src/shared/int64.js';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { chatportProcess } from '../helpers/cli-process.js';
import { describeFailure } from '../../src/cli/failure.js';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { runExport } from '../../src/pipeline/export/index.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import { captureLogs } from '../api/support.js';
import { failureSummary } from '../../src/cli/commands/export-termination-log.js';
import { once, startStallingStore } from '../helpers/stalling-s3.js';
import { runCli, startPassThroughProxy } from './cli.js';
import { listFiles, readDataset } from './read-output.js';
import { expectedMessageRows, pick, startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
const DATE = '2026-11-21';
/** Draws of the sandbox's random source, in order; 0.99 when empty (used only with failProbability). */
const draws: number[] = [];

beforeAll(async () => {
  bed = await startExportBed({ random: () => draws.shift() ?? 0.99 });
});
afterAll(() => bed.close());
beforeEach(() => {
  bed.sandbox.setFaults([]);
  bed.sandbox.setJobOptions({});
});

function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret, ...extra };
}

function terminationLog(dir: string): { path: string; read(): Record<string, unknown> } {
  const path = join(dir, 'termination-log');
  writeFileSync(path, '');
  return { path, read: () => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> };
}

it('a download cut midway continues with a Range request, and the file link on another origin gets no token', async () => {
  // The API is reached through a pass-through proxy, so the export's file link (the sandbox's own
  // address) is on another origin, like a pre-signed storage URL.
  const proxy = await startPassThroughProxy(new URL(bed.sandbox.url).port);
  const client = createClient(
    { apiUrl: proxy.url, auth: { kind: 'client-credentials', tokenUrl: `${proxy.url}/oauth/token`, ...bed.sandbox.credentials }, retry: 'rapid' },
    { logger: createSilentLogger() },
  );
  try {
    bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'drop', when: 'mid-body' }, times: 1 }]);
    bed.sandbox.clearRequests();
    const root = bed.tempDir();
    const report = await runExport(
      { datasets: ['messages'], to: root, format: 'parquet', date: DATE, job: { pollIntervalMs: 5 }, download: { resumeDelayMs: 1 } },
      { client },
    );
    const downloads = bed.sandbox.requests().filter((r) => r.path.startsWith('/_exports/'));
    expect(downloads).toHaveLength(2);
    expect(downloads[0]!.headers.range).toBeUndefined();
    expect(downloads[1]!.headers.range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(downloads.map((r) => r.headers.authorization)).toEqual([undefined, undefined]);
    expect(bed.sandbox.requests().find((r) => r.path.startsWith('/analytics/'))!.headers.authorization).toBe('present');
    const d = report.datasets[0]!;
    expect(d.download).toMatchObject({ resumes: 1, origin: new URL(bed.sandbox.url).origin });
    expect(d.download.bytes).toBe(d.download.totalBytes);
    expect(d).toMatchObject({ rowsRead: bed.messages.length, rowsWritten: bed.messages.length, rowsRejected: 0 });
    const rows = await readDataset(root, 'messages', DATE);
    const expected = expectedMessageRows(bed.messages);
    expect(rows.map((r) => pick(r, expected.get(r.id as bigint)!))).toEqual(rows.map((r) => expected.get(r.id as bigint)));
    expect(new Set(rows.map((r) => r.id)).size).toBe(bed.messages.length);
  } finally {
    await client.close();
    await proxy.close();
  }
});

it('a file that changed (same size) between a cut and the resume is downloaded again from byte 0, never spliced', async () => {
  const dataDir = bed.tempDir();
  const small = await startExportBed({ dataDir }, { users: 3, messages: 2 });
  try {
    small.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'drop', when: 'mid-body' }, times: 1 }]);
    small.sandbox.clearRequests();
    let changedName = '';
    let originalName = '';
    // The pause before the resume is where the platform replaces the file: same size, another version.
    const sleep = async () => {
      if (changedName) return;
      const dir = join(dataDir, 'exports');
      const file = join(dir, readdirSync(dir).find((n) => /^users-\d+\.csv$/.test(n))!);
      const lines = readFileSync(file, 'utf8').split('\n');
      const fields = lines[1]!.split(',');
      originalName = fields[1]!;
      changedName = originalName.toUpperCase();
      expect(changedName).not.toBe(fields[1]);
      lines[1] = [fields[0], changedName, ...fields.slice(2)].join(',');
      const before = statSync(file).size;
      writeFileSync(file, lines.join('\n'));
      expect(statSync(file).size).toBe(before);
    };
    const root = small.tempDir();
    const report = await runExport(
      { datasets: ['users'], to: root, format: 'csv', date: DATE, job: { pollIntervalMs: 5 }, download: { resumeDelayMs: 1 } },
      { client: small.client, sleep },
    );
    const downloads = small.sandbox.requests().filter((r) => r.path.startsWith('/_exports/'));
    // Cut; the resume names the first version (If-Range) and gets the new one whole (200); then from byte 0.
    expect(downloads.map((r) => [r.status, r.headers.range === undefined, r.headers['if-range'] === undefined])).toEqual([
      [undefined, true, true],
      [200, false, false],
      [200, true, true],
    ]);
    expect(downloads[1]!.headers['if-range']).toMatch(/^"/);
    const rows = await readDataset(root, 'users', DATE);
    expect(rows).toHaveLength(small.users.length);
    expect(report.datasets[0]).toMatchObject({ rowsRead: small.users.length, rowsWritten: small.users.length });
    expect(rows.map((r) => r.name)).toContain(changedName);
    expect(rows.map((r) => r.name)).not.toContain(originalName);
  } finally {
    await small.close();
  }
});

it('a resume after the signed link expired reads the job again for a fresh link', async () => {
  // The sandbox's clock moves only with the resume's pause: the link expires then, and only then.
  let clockMs = Date.now();
  const small = await startExportBed({ exportUrlTtlSeconds: 1, clock: () => clockMs }, { users: 2, messages: 2 });
  const proxy = await startPassThroughProxy(new URL(small.sandbox.url).port);
  const client = createClient(
    { apiUrl: proxy.url, auth: { kind: 'client-credentials', tokenUrl: `${proxy.url}/oauth/token`, ...small.sandbox.credentials }, retry: 'rapid' },
    { logger: createSilentLogger() },
  );
  try {
    small.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'drop', when: 'mid-body' }, times: 1 }]);
    small.sandbox.clearRequests();
    // The resume waits past the link's one-second life.
    const sleep = async (ms: number) => void (clockMs += ms);
    const report = await runExport(
      { datasets: ['users'], to: small.tempDir(), format: 'csv', date: DATE, job: { pollIntervalMs: 5 }, download: { resumeDelayMs: 1100 } },
      { client, sleep },
    );
    expect(report.datasets[0]).toMatchObject({ rowsRead: small.users.length, rowsWritten: small.users.length, download: { resumes: 1 } });
    const downloads = small.sandbox.requests().filter((r) => r.path.startsWith('/_exports/'));
    // The cut answer never recorded a status; then the expired link (403), then the fresh one from byte n (206).
    expect(downloads.map((r) => r.status)).toEqual([undefined, 403, 206]);
    expect(new Set(downloads.map((r) => r.path.split('/')[2])).size).toBe(2);
  } finally {
    await client.close();
    await proxy.close();
    await small.close();
  }
});

it('the nightly export repeats a start that met a 503, a 500 and a reset, and names the job it used', async () => {
  const logs = captureLogs();
  bed.sandbox.setFaults([
    { method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 503 }, times: 1 },
    { method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 500 }, times: 1 },
    { method: 'POST', path: '/analytics/**', fault: { kind: 'drop', when: 'after-processing' }, times: 1 },
  ]);
  bed.sandbox.clearRequests();
  const report = await runExport(
    { datasets: ['users'], to: bed.tempDir(), format: 'csv', date: DATE, job: { pollIntervalMs: 5 } },
    { client: bed.client, logger: logs.logger },
  );
  expect(bed.sandbox.requests().filter((r) => r.path === '/analytics/users').map((r) => r.status)).toEqual([503, 500, undefined, 202]);
  expect(report.datasets[0]).toMatchObject({ rowsRead: bed.users.length, rowsWritten: bed.users.length });
  const warning = logs.lines.map((l) => JSON.parse(l) as { msg: string; jobId?: number; failedAttempts?: unknown[] }).find((l) => l.msg.includes('needed 4 attempts'));
  expect(warning).toMatchObject({ jobId: report.datasets[0]!.jobId });
  expect(warning!.failedAttempts).toHaveLength(3);
});

it('a FAILED export job exits 3 (JOB_FAILED), publishes nothing and leaves the previous output as it was', async () => {
  const root = bed.tempDir();
  const log = terminationLog(bed.tempDir());
  const args = ['export', 'all', '--to', root, '--format', 'csv', '--date', DATE, '--poll-interval', '0.01'];
  const good = await runCli([...args, '--run-id', 'good'], cliEnv());
  expect(good.exitCode).toBe(ExitCode.OK);
  const before = listFiles(root);

  bed.sandbox.setJobOptions({ failProbability: 1 });
  const failed = await runCli([...args, '--run-id', 'bad'], cliEnv({ CHATPORT_TERMINATION_LOG: log.path }));
  expect(failed.exitCode).toBe(ExitCode.REMOTE_JOB_FAILED);
  expect((failed.error as { code?: string }).code).toBe('JOB_FAILED');
  expect(listFiles(root)).toEqual(before);
  expect(listFiles(root).some((f) => f.includes('part-bad-'))).toBe(false);
  expect(log.read()).toMatchObject({ command: 'export', status: 'failed', exitCode: 3, runId: 'bad', date: DATE, error: { code: 'JOB_FAILED' }, published: [] });

  const fresh = bed.tempDir();
  const nothing = await runCli(['export', 'users', '--to', fresh, '--date', DATE, '--poll-interval', '0.01'], cliEnv());
  expect(nothing.exitCode).toBe(ExitCode.REMOTE_JOB_FAILED);
  expect(listFiles(fresh)).toEqual([]);
});

it('with "all", one FAILED job is enough: the other finished, yet neither dataset is published', async () => {
  const root = bed.tempDir();
  // The messages job draws 0.9 (finishes), the users job 0.1 (fails) against a probability of 0.5.
  draws.push(0.9, 0.1);
  bed.sandbox.setJobOptions({ failProbability: 0.5 });
  const result = await runCli(['export', 'all', '--to', root, '--date', DATE, '--poll-interval', '0.01'], cliEnv());
  expect(result.exitCode).toBe(ExitCode.REMOTE_JOB_FAILED);
  expect((result.error as Error).message).toContain('USER_ANALYTICS_EXPORT');
  const jobs = await collectJobs();
  expect(jobs.filter((j) => j.type.endsWith('ANALYTICS_EXPORT')).slice(-2).map((j) => `${j.type}:${j.state}`)).toEqual(['MESSAGE_ANALYTICS_EXPORT:FINISHED', 'USER_ANALYTICS_EXPORT:FAILED']);
  expect(listFiles(root)).toEqual([]);
});

async function collectJobs() {
  const out = [];
  for await (const job of bed.client.jobs.list()) out.push(job);
  return out.sort((a, b) => compareInt64(a.id, b.id));
}

it('SIGTERM while waiting for the job: exits 143 through InterruptedError and publishes nothing', async () => {
  bed.sandbox.setJobOptions({ stuck: true });
  const root = bed.tempDir();
  const log = terminationLog(bed.tempDir());
  const controller = new AbortController();
  bed.sandbox.clearRequests();
  const running = runCli(['export', 'messages', '--to', root, '--date', DATE, '--poll-interval', '0.01'], cliEnv({ CHATPORT_TERMINATION_LOG: log.path }), controller.signal);
  // Stop once the job has been polled at least once.
  while (!bed.sandbox.requests().some((r) => r.path.startsWith('/jobs/'))) await new Promise((r) => setTimeout(r, 5));
  const { InterruptedError } = await import('../../src/shared/errors.js');
  controller.abort(new InterruptedError('SIGTERM'));
  const result = await running;
  expect(result.exitCode).toBe(ExitCode.SIGTERM);
  expect((result.error as { code?: string }).code).toBe('INTERRUPTED');
  expect(listFiles(root)).toEqual([]);
  expect(log.read()).toMatchObject({ status: 'interrupted', exitCode: 143, error: { code: 'INTERRUPTED' } });
});

it('SIGTERM in the middle of writing: the publication is aborted, the previous output stays', async () => {
  const root = bed.tempDir();
  const base = { datasets: ['messages' as const], to: root, format: 'parquet' as const, date: DATE, job: { pollIntervalMs: 5 } };
  await runExport({ ...base, runId: 'kept' }, { client: bed.client });
  const before = listFiles(root);
  const { InterruptedError } = await import('../../src/shared/errors.js');
  const controller = new AbortController();
  let stagedWhenStopped: string[] = [];
  // The stop arrives after half the file was read and its rows handed to the writer.
  const client = {
    ...bed.client,
    serverInfo: bed.client.serverInfo,
    exports: {
      ...bed.client.exports,
      async download(...args: Parameters<typeof bed.client.exports.download>) {
        const download = await bed.client.exports.download(...args);
        const whole: Buffer[] = [];
        for await (const chunk of download.stream) whole.push(chunk as Buffer);
        const bytes = Buffer.concat(whole);
        async function* halves(): AsyncGenerator<Buffer> {
          yield bytes.subarray(0, bytes.length >> 1);
          // Wait (at most 2 s) until the writer has started publishing this run, then stop.
          for (let i = 0; i < 400 && stagedWhenStopped.length === 0; i++) {
            await new Promise((r) => setTimeout(r, 5));
            stagedWhenStopped = listFiles(root).filter((f) => f.startsWith('_staging/') && f.includes('stopped'));
          }
          controller.abort(new InterruptedError('SIGTERM'));
          yield bytes.subarray(bytes.length >> 1);
        }
        return { ...download, stream: Readable.from(halves()) };
      },
    },
  };
  const error = await runExport({ ...base, runId: 'stopped', signal: controller.signal }, { client }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InterruptedError);
  expect(stagedWhenStopped.length).toBeGreaterThan(0);
  expect(listFiles(root)).toEqual(before);
});

// The pod's SIGTERM while an upload to S3 waits on a store that does not answer: the run ends as
// interrupted at once, its cleanup is cut short after its grace (an injected clock here), and the
// termination log says what the output was left as.
it('SIGTERM while an upload waits on a silent S3 store: 143 within the cleanup grace, and the summary says what was left', async () => {
  const { InterruptedError } = await import('../../src/shared/errors.js');
  const store = await startStallingStore('bkt', false);
  const controller = new AbortController();
  void once(store.uploading).then(() => controller.abort(new InterruptedError('SIGTERM')));
  try {
    const s3 = { endpoint: store.endpoint, credentials: { accessKeyId: 'k', secretAccessKey: 's' }, sleep: (_ms: number, signal?: AbortSignal) => once(store.cleanupAsked, signal) };
    const error = await runExport(
      { datasets: ['users'], to: 's3://bkt/p', format: 'ndjson', date: DATE, runId: 'stopped', job: { pollIntervalMs: 5 }, s3, signal: controller.signal },
      { client: bed.client },
    ).catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    expect(failureSummary(error, { runId: 'stopped', date: DATE }, [])).toMatchObject({
      status: 'interrupted',
      exitCode: ExitCode.SIGTERM,
      cleanup: expect.stringMatching(/^cleaning up s3:\/\/bkt\/p\/users\/dt=2026-11-21\/ .*_SUCCESS stays down.*The next export of this date removes this attempt's files/),
    });
  } finally {
    store.close();
  }
}, 20_000);

it('a successful CLI run prints the report as JSON and a summary to the termination log', async () => {
  const root = bed.tempDir();
  const log = terminationLog(bed.tempDir());
  const result = await runCli(['export', 'all', '--to', root, '--format', 'ndjson', '--date', '2026-11-21T02:30:00Z', '--run-id', 'cli', '--poll-interval', '0.01', '--json'], cliEnv({ CHATPORT_TERMINATION_LOG: log.path }));
  expect(result.error).toBeUndefined();
  expect(result.exitCode).toBe(ExitCode.OK);
  const report = JSON.parse(result.stdout) as { runId: string; date: string; totals: { rowsRead: number; balanced: boolean } };
  expect(report).toMatchObject({ runId: 'cli', date: '2026-11-21', totals: { rowsRead: bed.messages.length + bed.users.length, balanced: true } });
  expect(log.read()).toMatchObject({ status: 'succeeded', exitCode: 0, runId: 'cli', datasets: { messages: { rows: bed.messages.length }, users: { rows: bed.users.length } } });
  expect(readFileSync(log.path, 'utf8').trim().split('\n')).toHaveLength(1);
});

it('usage mistakes exit 64 before anything is started', async () => {
  bed.sandbox.clearRequests();
  const bad = await runCli(['export', 'everything', '--to', bed.tempDir()], cliEnv());
  expect(bad.exitCode).toBe(ExitCode.USAGE);
  const noTarget = await runCli(['export', 'users'], cliEnv());
  expect(noTarget.exitCode).toBe(ExitCode.USAGE);
  const badDate = await runCli(['export', 'users', '--to', bed.tempDir(), '--date', '2026-02-30'], cliEnv());
  expect(badDate.exitCode).toBe(ExitCode.USAGE);
  // The root itself as the rejects folder would put rejects into <to>/<dataset>/dt=…, the data folders.
  const root = bed.tempDir();
  const rejectsInRoot = await runCli(['export', 'users', '--to', root, '--rejects-dir', root], cliEnv());
  expect(rejectsInRoot.exitCode).toBe(ExitCode.USAGE);
  expect(bed.sandbox.requests().filter((r) => r.path.startsWith('/analytics/'))).toEqual([]);
});

it('an output or rejects folder under /proc or /sys is configuration (78) before any job: Node 20 would spin in mkdir there, deaf to SIGTERM', async () => {
  bed.sandbox.clearRequests();
  const output = await runCli(['export', 'users', '--to', '/proc/chatport-export-test/out', '--date', '2026-11-21'], cliEnv());
  expect([output.exitCode, (output.error as Error).message]).toEqual([ExitCode.CONFIG, expect.stringMatching(/^the output folder \/proc\/chatport-export-test\/out is under \/proc/)]);
  const rejects = await runCli(['export', 'users', '--to', bed.tempDir(), '--rejects-dir', '/sys/chatport-export-test', '--date', '2026-11-21'], cliEnv());
  expect([rejects.exitCode, (rejects.error as Error).message]).toEqual([ExitCode.CONFIG, expect.stringMatching(/^the rejects folder \/sys\/chatport-export-test is under \/sys/)]);
  expect(bed.sandbox.requests().filter((r) => r.path.startsWith('/analytics/'))).toEqual([]);
});

it('a system error (a file in the way of --to) is named in the termination log by its own code and words, not as INTERNAL (a bug)', async () => {
  const dir = bed.tempDir();
  writeFileSync(join(dir, 'file'), '');
  const log = terminationLog(bed.tempDir());
  const result = await runCli(['export', 'users', '--to', join(dir, 'file', 'out'), '--date', '2026-11-21', '--poll-interval', '0.01'], cliEnv({ CHATPORT_TERMINATION_LOG: log.path }));
  expect(result.exitCode).toBe(ExitCode.CANT_CREATE);
  expect(log.read()).toMatchObject({ status: 'failed', exitCode: ExitCode.CANT_CREATE, error: { code: 'ENOTDIR', message: expect.stringMatching(/^cannot \w+ .*\/file\/out.*: not a directory \(ENOTDIR\)$/) } });
  // The hint points at the export's own folders, not only at an import's --state.
  expect(describeFailure(result.error, { debug: false }).json.error.hint).toMatch(/writable.*--to/);
});

it('--incremental with a state folder it cannot write stops before any job (73), rather than publish and then fail every night', async () => {
  const root = bed.tempDir();
  const state = join(bed.tempDir(), 'state');
  bed.sandbox.clearRequests();
  const ran = await chatportProcess(['export', 'users', '--to', root, '--incremental', '--state', state, '--poll-interval', '0.01'], { ...cliEnv(), CHATPORT_TEST_READ_ONLY_FOLDER: state }, undefined, [
    pathToFileURL(join(import.meta.dirname, '..', 'helpers', 'read-only-folder.mjs')).href,
  ]);
  expect([ran.code, ran.stderr]).toEqual([ExitCode.CANT_CREATE, expect.stringMatching(/cannot mkdir .*state: read-only file system \(EROFS\)/)]);
  expect(bed.sandbox.requests().filter((r) => r.path.startsWith('/analytics/'))).toEqual([]);
  expect(readdirSync(root)).toEqual([]);
}, 30_000);

it('a bad date from $CHATPORT_EXPORT_DATE (a scheduler template rendered wrong or empty) is refused naming that variable, not --date', async () => {
  bed.sandbox.clearRequests();
  const compact = await runCli(['export', 'users', '--to', bed.tempDir()], cliEnv({ CHATPORT_EXPORT_DATE: '20261121' }));
  expect([compact.exitCode, (compact.error as Error).message]).toEqual([ExitCode.USAGE, expect.stringMatching(/^invalid \$CHATPORT_EXPORT_DATE "20261121": expected YYYY-MM-DD/)]);
  const empty = await runCli(['export', 'users', '--to', bed.tempDir()], cliEnv({ CHATPORT_EXPORT_DATE: '' }));
  expect([empty.exitCode, (empty.error as Error).message]).toEqual([ExitCode.USAGE, expect.stringMatching(/^invalid \$CHATPORT_EXPORT_DATE "": expected YYYY-MM-DD/)]);
  const window = await runCli(['export', 'users', '--to', bed.tempDir(), '--since', '2026-11-20', '--until', '2026-11-21'], cliEnv({ CHATPORT_EXPORT_DATE: '2026-11-21' }));
  expect([window.exitCode, (window.error as Error).message]).toEqual([ExitCode.USAGE, 'give either $CHATPORT_EXPORT_DATE or --since/--until, not both']);
  expect(bed.sandbox.requests().filter((r) => r.path.startsWith('/analytics/'))).toEqual([]);
});
