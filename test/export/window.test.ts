/**
 * Exports by date that mean it: messages are placed by their created_time's UTC day, a window writes one
 * partition per day, the incremental mode remembers its last window, and another format never replaces a
 * published date. The sandbox's clock stamps createdTime, so messages land on given days; the export's
 * own clock is injected (no wall clock).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { partitionByDay } from '../../src/pipeline/export/day-partitions.js';
import { removeStaleSpillFolders } from '../../src/shared/spill-folders.js';
import { checkWindow } from '../../src/pipeline/export/export-window.js';
import { runExport, type ExportReport } from '../../src/pipeline/export/index.js';
import { ExitCode } from '../../src/shared/exit-codes.js';
import type { Int64 } from '../../src/shared/int64.js';
import { runCli } from './cli.js';
import { listFiles, readDataset, readManifest } from './read-output.js';
import { startExportBed, type ExportBed } from './support.js';

const DAY1 = '2026-11-20';
const DAY2 = '2026-11-21';
const DAY3 = '2026-11-22';
/** Messages created per day (a second before midnight and at midnight are the edges of a day). */
const PER_DAY: Record<string, string[]> = {
  [DAY1]: ['2026-11-20T00:00:00.000Z', '2026-11-20T23:59:59.999Z'],
  [DAY2]: ['2026-11-21T00:00:00.000Z', '2026-11-21T08:30:00.000Z', '2026-11-21T23:59:59.000Z'],
  [DAY3]: ['2026-11-22T11:00:00.000Z'],
};

let bed: ExportBed;
let clockMs = Date.parse('2026-11-19T12:00:00Z');
const idsByDay = new Map<string, bigint[]>();

async function importMessagesAt(iso: string, key: string): Promise<void> {
  clockMs = Date.parse(iso);
  const channels: Array<{ id: Int64; name: string }> = [];
  for await (const c of bed.client.channels.list()) channels.push(c);
  const general = channels.find((c) => c.name === 'general')!;
  const path = join(bed.tempDir(), 'messages.json');
  writeFileSync(path, JSON.stringify([{ type: 'TEXT', channelId: general.id, user: 'alice', body: `at ${iso}`, properties: {}, idempotencyKey: key }]));
  const job = await bed.client.jobs.wait((await bed.client.imports.upload('messages', { path })).id, { initialIntervalMs: 5 });
  if (job.state !== 'FINISHED') throw new Error(`import at ${iso} ended ${job.state}`);
}

beforeAll(async () => {
  // Users and the demo's messages are created on 2026-11-19 (the sandbox clock's start).
  bed = await startExportBed({ clock: () => clockMs }, { users: 3, messages: 2 });
  for (const [day, times] of Object.entries(PER_DAY)) for (const [i, iso] of times.entries()) await importMessagesAt(iso, `window-${day}-${i}`);
  for await (const m of bed.client.messages.list()) {
    const day = m.createdTime!.slice(0, 10);
    idsByDay.set(day, [...(idsByDay.get(day) ?? []), BigInt(m.id)]);
  }
  expect(idsByDay.get(DAY2)).toHaveLength(PER_DAY[DAY2]!.length);
});
afterAll(() => bed.close());

const idsOf = (rows: Array<Record<string, unknown>>) => rows.map((r) => r.id as bigint).sort((a, b) => (a < b ? -1 : 1));
const env = () => ({ CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret });
const totalMessages = () => [...idsByDay.values()].reduce((n, ids) => n + ids.length, 0);

it('--date D writes only the messages created that UTC day; other days are counted as outside the window', async () => {
  const root = bed.tempDir();
  const result = await runCli(['export', 'all', '--to', root, '--format', 'csv', '--date', DAY2, '--poll-interval', '0.01', '--json'], env());
  expect(result.error).toBeUndefined();
  expect(result.exitCode).toBe(ExitCode.OK);
  const report = JSON.parse(result.stdout) as ExportReport;
  const messages = report.datasets.find((d) => d.dataset === 'messages')!;
  expect(idsOf(await readDataset(root, 'messages', DAY2))).toEqual(idsByDay.get(DAY2));
  expect(messages).toMatchObject({ rowsRead: totalMessages(), rowsWritten: 3, rowsRejected: 0, rowsOutsideWindow: totalMessages() - 3 });
  expect(report.totals.balanced).toBe(true);
  // Users: all of them, a snapshot labelled with the date.
  expect(await readDataset(root, 'users', DAY2)).toHaveLength(bed.users.length);
  expect(readManifest(root, 'messages', DAY2).details).toMatchObject({ rowsOutsideWindow: totalMessages() - 3, partitionedBy: 'created_time', window: { since: `${DAY2}T00:00:00.000Z`, until: `${DAY3}T00:00:00.000Z` } });
  expect(listFiles(root).filter((f) => f.includes('dt=') && !f.includes(`dt=${DAY2}`))).toEqual([]);
});

it('--date yesterday takes the export clock, not the day the messages were imported', async () => {
  const root = bed.tempDir();
  const result = await runCli(['export', 'messages', '--to', root, '--format', 'ndjson', '--date', 'yesterday', '--poll-interval', '0.01'], env(), undefined, () => Date.parse('2026-11-21T03:00:00Z'));
  expect(result.exitCode).toBe(ExitCode.OK);
  expect(idsOf(await readDataset(root, 'messages', DAY1))).toEqual(idsByDay.get(DAY1));
  expect(result.stdout).toContain(`outside the window (other days, not written): ${totalMessages() - 2}`);
});

it('a window spanning two days writes two partitions, each with its rows, manifest and _SUCCESS', async () => {
  const root = bed.tempDir();
  const report = await runExport(
    { datasets: ['messages', 'users'], to: root, format: 'parquet', window: { sinceMs: Date.parse(`${DAY1}T00:00:00Z`), untilMs: Date.parse(`${DAY3}T00:00:00Z`) }, runId: 'two', job: { pollIntervalMs: 5 } },
    { client: bed.client },
  );
  for (const day of [DAY1, DAY2]) {
    expect(idsOf(await readDataset(root, 'messages', day))).toEqual(idsByDay.get(day));
    expect(existsSync(join(root, 'messages', `dt=${day}`, '_SUCCESS'))).toBe(true);
    expect(readManifest(root, 'messages', day)).toMatchObject({ date: day, rowCount: idsByDay.get(day)!.length });
  }
  const messages = report.datasets.find((d) => d.dataset === 'messages')!;
  expect(messages.partitions.map((p) => [p.date, p.rowsWritten])).toEqual([[DAY1, 2], [DAY2, 3]]);
  expect(messages.rowsOutsideWindow).toBe(totalMessages() - 5);
  // Users: one snapshot, labelled with the window's last day.
  expect(listFiles(root).filter((f) => f.startsWith('users/'))).toEqual([`users/dt=${DAY2}/_SUCCESS`, `users/dt=${DAY2}/part-two-00000.parquet`]);
  expect(report.totals.balanced).toBe(true);
});

it('a run removes the day spools of killed runs on this host, and leaves live or foreign ones alone', async () => {
  // What a kill -9 leaves in the OS temp folder: a spool naming a pid that no longer runs.
  const spool = (owner: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), 'chatport-export-days-'));
    writeFileSync(join(dir, 'owner.json'), JSON.stringify({ startedAt: '2026-11-20T00:00:00.000Z', ...owner }));
    writeFileSync(join(dir, `${DAY1}.v8`), Buffer.alloc(1024));
    return dir;
  };
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
  const killed = spool({ pid: deadPid, host: hostname(), token: 'aa' });
  // Same pid as this process, a token it does not hold: a restarted container's earlier life.
  const earlierLife = spool({ pid: process.pid, host: hostname(), token: 'bb' });
  const live = spool({ pid: process.ppid, host: hostname(), token: 'cc' });
  const foreign = spool({ pid: deadPid, host: `not-${hostname()}`, token: 'dd' });
  const unowned = mkdtempSync(join(tmpdir(), 'chatport-export-days-'));
  try {
    const root = bed.tempDir();
    await runExport(
      { datasets: ['messages'], to: root, format: 'csv', window: { sinceMs: Date.parse(`${DAY1}T00:00:00Z`), untilMs: Date.parse(`${DAY3}T00:00:00Z`) }, runId: 'spools', job: { pollIntervalMs: 5 } },
      { client: bed.client },
    );
    expect([killed, earlierLife, live, foreign, unowned].map((d) => existsSync(d))).toEqual([false, false, true, true, true]);
  } finally {
    for (const dir of [killed, earlierLife, live, foreign, unowned]) rmSync(dir, { recursive: true, force: true });
  }
});

it('a multi-day spool names its owner, so a later run can tell it from a live one', async () => {
  const before = new Set(readdirSync(tmpdir()));
  const micros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
  async function* rows() {
    yield { id: 1n, created_time: micros(`${DAY1}T10:00:00Z`) };
    yield { id: 2n, created_time: micros(`${DAY2}T10:00:00Z`) };
  }
  const days = partitionByDay(rows(), 'created_time', [DAY1, DAY2]);
  const first = await days.next();
  expect(first.value!.date).toBe(DAY1);
  const spools = readdirSync(tmpdir()).filter((n) => n.startsWith('chatport-export-days-') && !before.has(n)).map((n) => join(tmpdir(), n));
  const ours = spools.filter((d) => (JSON.parse(readFileSync(join(d, 'owner.json'), 'utf8')) as { pid: number }).pid === process.pid);
  expect(ours).toHaveLength(1);
  expect(JSON.parse(readFileSync(join(ours[0]!, 'owner.json'), 'utf8'))).toMatchObject({ host: hostname(), token: expect.stringMatching(/^[0-9a-f]+$/) });
  // Held by this process: another run's clean-up leaves it.
  await removeStaleSpillFolders();
  expect(existsSync(join(ours[0]!, `${DAY2}.v8`))).toBe(true);
  await days.return(undefined);
  expect(existsSync(ours[0]!)).toBe(false);
});

it('--since/--until must be whole UTC days', async () => {
  const result = await runCli(['export', 'messages', '--to', bed.tempDir(), '--since', `${DAY1}T12:00:00Z`, '--until', DAY3], env());
  expect(result.exitCode).toBe(ExitCode.USAGE);
  expect(String(result.error)).toContain('not a UTC midnight');
});

it('--incremental exports the days due, remembers the window, and a second run the same day does nothing', async () => {
  const root = bed.tempDir();
  const state = join(bed.tempDir(), 'state');
  const args = ['export', 'messages', '--to', root, '--format', 'csv', '--incremental', '--state', state, '--poll-interval', '0.01'];
  // First run on DAY2 at 02:00: yesterday (DAY1).
  const first = await runCli(args, env(), undefined, () => Date.parse(`${DAY2}T02:00:00Z`));
  expect(first.exitCode).toBe(ExitCode.OK);
  expect(idsOf(await readDataset(root, 'messages', DAY1))).toEqual(idsByDay.get(DAY1));
  const firstRunId = readManifest(root, 'messages', DAY1).runId;
  expect(JSON.parse(readFileSync(join(state, 'export-state.json'), 'utf8'))).toMatchObject({ lastWindow: { since: `${DAY1}T00:00:00.000Z`, until: `${DAY2}T00:00:00.000Z` } });
  // Again the same day: nothing due, nothing written.
  const before = listFiles(root);
  const again = await runCli(args, env(), undefined, () => Date.parse(`${DAY2}T23:00:00Z`));
  expect(again.exitCode).toBe(ExitCode.NOTHING_TO_DO);
  expect(again.stdout).toContain('nothing to do');
  expect(listFiles(root)).toEqual(before);
  // Two nights later (one night missed): DAY2 and DAY3, each its own partition; DAY1 untouched.
  const later = await runCli([...args, '--json'], env(), undefined, () => Date.parse('2026-11-23T02:00:00Z'));
  expect(later.exitCode).toBe(ExitCode.OK);
  expect((JSON.parse(later.stdout) as ExportReport).window.days).toEqual([DAY2, DAY3]);
  expect(idsOf(await readDataset(root, 'messages', DAY2))).toEqual(idsByDay.get(DAY2));
  expect(idsOf(await readDataset(root, 'messages', DAY3))).toEqual(idsByDay.get(DAY3));
  expect(readManifest(root, 'messages', DAY1).runId).toBe(firstRunId);
  expect(JSON.parse(readFileSync(join(state, 'export-state.json'), 'utf8'))).toMatchObject({ lastWindow: { since: `${DAY2}T00:00:00.000Z`, until: '2026-11-23T00:00:00.000Z' } });
});

it('another format for a published date is refused (exit 78) and the first stays as it was', async () => {
  const root = bed.tempDir();
  const first = await runCli(['export', 'messages', '--to', root, '--format', 'parquet', '--date', DAY2, '--run-id', 'pq', '--poll-interval', '0.01'], env());
  expect(first.exitCode).toBe(ExitCode.OK);
  const before = listFiles(root);
  bed.sandbox.clearRequests();
  const second = await runCli(['export', 'messages', '--to', root, '--format', 'csv', '--date', DAY2, '--run-id', 'csv', '--poll-interval', '0.01'], env());
  expect(second.exitCode).toBe(ExitCode.CONFIG);
  expect(String(second.error)).toContain(`messages/dt=${DAY2} already holds parquet output (run pq)`);
  // Refused before any export job started; the parquet output is untouched.
  expect(bed.sandbox.requests().filter((r) => r.path.startsWith('/analytics/'))).toEqual([]);
  expect(listFiles(root)).toEqual(before);
  expect(readManifest(root, 'messages', DAY2)).toMatchObject({ format: 'parquet', runId: 'pq' });
  // The same format again still replaces the date (the normal rerun).
  const rerun = await runCli(['export', 'messages', '--to', root, '--format', 'parquet', '--date', DAY2, '--run-id', 'pq2', '--poll-interval', '0.01'], env());
  expect(rerun.exitCode).toBe(ExitCode.OK);
  expect(readManifest(root, 'messages', DAY2).runId).toBe('pq2');
});

it('an inverted window is refused with the bounds as given in its details', () => {
  const window = { sinceMs: Date.UTC(2026, 10, 5), untilMs: Date.UTC(2026, 10, 1) };
  expect(() => checkWindow(window)).toThrow(expect.objectContaining({
    code: 'USAGE',
    details: { since: '2026-11-05T00:00:00.000Z', until: '2026-11-01T00:00:00.000Z', days: [] },
  }));
});
