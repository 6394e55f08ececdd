/**
 * A row's day is decided by its created_time alone, the same way on every path: a single-day run and a
 * multi-day run (rows spooled per day), the columnar Parquet fast path and the row-by-row path, before
 * 1970 too. And a row whose day is known to be outside the window is outside it, whatever its other
 * columns hold: an old day's bad row does not count against every night. The export is served from
 * "storage" on another origin, so each test says what it holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport, windowOfDate, type ExportReport, type ExportWindow } from '../../src/pipeline/export/index.js';
import type { OutputFormat } from '../../src/sinks/index.js';
import { exitCodeFor } from '../../src/shared/exit-codes.js';
import { listFiles, readDataset, readManifest } from './read-output.js';
import { startStoredExportBed, type StoredExportBed } from './support.js';

const HEADER = 'id,type,channelId,channelName,userId,username,bodyLength,repliesCount,reactionsCount,groupTag,createdTime,lastEditedTime';
const csvOf = (rows: Array<[id: number, bodyLength: string, createdTime: string]>) =>
  [HEADER, ...rows.map(([id, bodyLength, createdTime]) => `${id},TEXT,1,g,1,u,${bodyLength},0,0,,${createdTime},`)].join('\n');

describe('rows by day', () => {
  let stored: StoredExportBed;
  beforeAll(async () => {
    stored = await startStoredExportBed();
  });
  afterAll(() => stored.close());

  async function exportMessages(format: OutputFormat, window: ExportWindow, extra: { maxRejects?: number; root?: string; runId?: string } = {}) {
    const { root = stored.bed.tempDir(), runId = 'days', ...rest } = extra;
    const report = await runExport({ datasets: ['messages'], to: root, format, window, runId, job: { pollIntervalMs: 5 }, ...rest }, { client: stored.bed.client });
    return { root, report, messages: report.datasets[0]! };
  }

  /** The ids of every written partition, by day. */
  async function idsByDay(root: string): Promise<Record<string, bigint[]>> {
    const days = [...new Set(listFiles(root).flatMap((f) => /^messages\/dt=([^/]+)\/part-/.exec(f)?.[1] ?? []))];
    const out: Record<string, bigint[]> = {};
    for (const day of days.sort()) {
      const ids = (await readDataset(root, 'messages', day)).map((r) => r.id as bigint).sort((a, b) => (a < b ? -1 : 1));
      if (ids.length > 0) out[day] = ids;
    }
    return out;
  }

  it('a pre-1970 row in the last millisecond before midnight stays in its day on every path', async () => {
    // Sub-millisecond digits before 1970: a division that truncates toward zero moves the row to the next day.
    stored.serve(
      csvOf([
        [1, '1', '1969-12-31T23:59:59.9995Z'],
        [2, '1', '1969-12-31T23:59:59.000001Z'],
        [3, '1', '1970-01-01T00:00:00.0005Z'],
        [4, '1', '1969-12-31T00:00:00Z'],
        [5, '1', '1969-12-30T23:59:59.999999Z'],
      ]),
    );
    const expected = { '1969-12-30': [5n], '1969-12-31': [1n, 2n, 4n], '1970-01-01': [3n] };
    const day = (date: string) => windowOfDate(date);
    const days = (since: string, until: string): ExportWindow => ({ sinceMs: Date.parse(`${since}T00:00:00Z`), untilMs: Date.parse(`${until}T00:00:00Z`) });

    // One day at a time: the Parquet fast path and the row-by-row path.
    for (const format of ['parquet', 'ndjson'] as const) {
      const byDay: Record<string, bigint[]> = {};
      for (const date of Object.keys(expected)) Object.assign(byDay, await idsByDay((await exportMessages(format, day(date))).root));
      expect(byDay, format).toEqual(expected);
    }
    // Several days at once: spooled per day, in both formats; a window whose last day is 1969-12-31 too.
    for (const format of ['parquet', 'ndjson'] as const) {
      const all = await exportMessages(format, days('1969-12-30', '1970-01-02'));
      expect(await idsByDay(all.root), format).toEqual(expected);
      expect(all.messages).toMatchObject({ rowsRead: 5, rowsWritten: 5, rowsRejected: 0, rowsOutsideWindow: 0 });
      const before1970 = await exportMessages(format, days('1969-12-30', '1970-01-01'));
      expect(await idsByDay(before1970.root), format).toEqual({ '1969-12-30': [5n], '1969-12-31': [1n, 2n, 4n] });
      expect(before1970.messages).toMatchObject({ rowsWritten: 4, rowsOutsideWindow: 1 });
    }
  });

  describe('a bad row of another day is outside the window, not rejected', () => {
    const DATE = '2026-11-21';
    beforeAll(() => {
      stored.serve(
        [
          csvOf([
            [1, '3', '2026-11-21T10:00:00Z'],
            // Old days, each with a bad column: bodyLength, a missing required id, a value past int32.
            [2, 'NaN', '2026-01-05T10:00:00Z'],
            [3, '2147483648', '2026-11-20T23:59:59.999999Z'],
            // This night's own bad row, and rows whose day cannot be known: they count against the night.
            [5, 'NaN', '2026-11-21T11:00:00Z'],
            [6, '1', '2026-11-31T10:00:00Z'],
            [7, '1', ''],
            [8, '4', '2026-11-22T00:00:00Z'],
          ]),
          ',TEXT,1,g,1,u,1,0,0,,2025-06-01T00:00:00Z,',
          '10,TEXT,1,g,1,u,x,0,0,,2026-11-21T12:00:00Z,',
        ].join('\n'),
      );
    });

    for (const format of ['parquet', 'ndjson'] as const) {
      it(`in ${format} (${format === 'parquet' ? 'the columnar fast path' : 'the row-by-row path'})`, async () => {
        const run = await exportMessages(format, windowOfDate(DATE));
        expect(run.messages).toMatchObject({ rowsRead: 9, rowsWritten: 1, rowsRejected: 4, rowsOutsideWindow: 4 });
        expect((await readDataset(run.root, 'messages', DATE)).map((r) => r.id)).toEqual([1n]);
        expect(rejectedIds(run.report)).toEqual(['5', '6', '7', '10']);
      });
    }

    it('so a night whose own rows are good succeeds under --max-rejects 0', async () => {
      stored.serve(csvOf([[1, '3', '2026-11-21T10:00:00Z'], [2, 'NaN', '2026-01-05T10:00:00Z'], [3, '-', '2025-01-05T10:00:00Z']]));
      for (const format of ['parquet', 'csv'] as const) {
        const run = await exportMessages(format, windowOfDate(DATE), { maxRejects: 0 });
        expect(run.report.status).toBe('succeeded');
        expect(run.messages).toMatchObject({ rowsRead: 3, rowsWritten: 1, rowsRejected: 0, rowsOutsideWindow: 2, rejectsFile: null });
      }
    });
  });

  describe('a window of several days', () => {
    const days = (since: string, until: string): ExportWindow => ({ sinceMs: Date.parse(`${since}T00:00:00Z`), untilMs: Date.parse(`${until}T00:00:00Z`) });
    const idsIn = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { record: { id: string } }).record.id);
    const rejectsOf = (root: string, date: string) => join(root, '_rejects', 'messages', `dt=${date}`);

    it('files each reject under its day, so a later run of one day replaces only that day\'s rejects', async () => {
      const window = [
        [1, '1', '2026-11-20T10:00:00Z'], [2, 'NaN', '2026-11-20T10:00:00Z'],
        [3, '1', '2026-11-21T10:00:00Z'], [4, 'NaN', '2026-11-21T10:00:00Z'],
        [5, '1', '2026-11-31T10:00:00Z'],
      ] as Array<[number, string, string]>;
      stored.serve(csvOf(window));
      const root = stored.bed.tempDir();
      const run = await exportMessages('ndjson', days('2026-11-20', '2026-11-23'), { root, runId: 'win' });
      const [day20, day21, undated] = [join(rejectsOf(root, '2026-11-20'), 'rejects-win.ndjson'), join(rejectsOf(root, '2026-11-21'), 'rejects-win.ndjson'), join(rejectsOf(root, '2026-11-22'), 'undated-win.ndjson')];
      expect(run.messages).toMatchObject({ rowsRead: 5, rowsWritten: 2, rowsRejected: 3, rejectsFile: undated });
      expect(run.messages.partitions.map((p) => p.rejectsFile)).toEqual([day20, day21, null]);
      expect([idsIn(day20), idsIn(day21), idsIn(undated)]).toEqual([['2'], ['4'], ['5']]);
      expect(JSON.parse(readFileSync(day20, 'utf8')) as unknown).toMatchObject({ date: '2026-11-20' });
      for (const [date, file] of [['2026-11-20', day20], ['2026-11-21', day21], ['2026-11-22', null]] as const)
        expect(readManifest(root, 'messages', date).details, date).toMatchObject({ rowsRejected: 3, rejectsFile: file, undatedRejectsFile: undated });

      // The platform fixed row 4; the night of the 21st is run again: the other days' rejects stay.
      stored.serve(csvOf(window.map(([id, length, time]) => [id, id === 4 ? '1' : length, time])));
      const again = await exportMessages('ndjson', windowOfDate('2026-11-21'), { root, runId: 'day' });
      expect(again.messages).toMatchObject({ rowsWritten: 2, rowsRejected: 1, rejectsFile: join(rejectsOf(root, '2026-11-21'), 'rejects-day.ndjson') });
      expect(readManifest(root, 'messages', '2026-11-21').details).toMatchObject({ rejectsFile: again.messages.rejectsFile });
      expect(readManifest(root, 'messages', '2026-11-21').details).not.toHaveProperty('undatedRejectsFile');
      expect(readdirSync(rejectsOf(root, '2026-11-21'))).toEqual(['rejects-day.ndjson']);
      expect(idsIn(again.messages.rejectsFile!)).toEqual(['5']);
      expect([idsIn(day20), idsIn(undated)]).toEqual([['2'], ['5']]);

      // The same window again replaces every rejects file of its days, the undated one too.
      const rerun = await exportMessages('ndjson', days('2026-11-20', '2026-11-23'), { root, runId: 'win2' });
      expect(rerun.messages.rowsRejected).toBe(2);
      expect(['2026-11-20', '2026-11-21', '2026-11-22'].map((d) => existsSync(rejectsOf(root, d)) ? readdirSync(rejectsOf(root, d)) : [])).toEqual([['rejects-win2.ndjson'], [], ['undated-win2.ndjson']]);
    });

    it('without --max-rejects, a day whose every row is rejected stops the window (65) before any day is replaced', async () => {
      const good = csvOf([[1, '1', '2026-11-20T10:00:00Z'], [2, '1', '2026-11-21T10:00:00Z'], [3, '1', '2026-11-22T10:00:00Z']]);
      const root = stored.bed.tempDir();
      stored.serve(good);
      await exportMessages('parquet', days('2026-11-20', '2026-11-23'), { root, runId: 'good' });
      // A revision breaks the 21st's rows only; the 22nd has no rows at all (an empty day is no refusal).
      const broken21st = csvOf([[1, '1', '2026-11-20T10:00:00Z'], [2, 'NaN', '2026-11-21T10:00:00Z'], [4, 'x', '2026-11-21T11:00:00Z'], [6, '1', 'never']]);
      stored.serve(broken21st);
      const failed = exportMessages('parquet', days('2026-11-20', '2026-11-23'), { root, runId: 'bad' });
      await expect(failed).rejects.toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED', details: { days: ['2026-11-21'], rejected: 3 } });
      expect(exitCodeFor(await failed.catch((e: unknown) => e))).toBe(65);
      for (const date of ['2026-11-20', '2026-11-21', '2026-11-22']) expect(readManifest(root, 'messages', date).runId, date).toBe('good');
      expect(await idsByDay(root)).toEqual({ '2026-11-20': [1n], '2026-11-21': [2n], '2026-11-22': [3n] });

      // Every row without a readable day (created_time in another shape): no day keeps a row, so none is emptied.
      stored.serve(csvOf([[1, '1', '1763632800'], [2, '1', '1763719200']]));
      await expect(exportMessages('parquet', days('2026-11-20', '2026-11-23'), { root, runId: 'epoch' })).rejects.toMatchObject({
        code: 'REJECT_LIMIT_EXCEEDED', details: { days: ['2026-11-20', '2026-11-21', '2026-11-22'], rejected: 2 },
      });
      expect(await idsByDay(root)).toEqual({ '2026-11-20': [1n], '2026-11-21': [2n], '2026-11-22': [3n] });

      // With --max-rejects the threshold is the user's: the day is published empty.
      stored.serve(broken21st);
      const allowed = await exportMessages('parquet', days('2026-11-20', '2026-11-23'), { root, runId: 'allowed', maxRejects: 10 });
      expect(allowed.messages).toMatchObject({ rowsWritten: 1, rowsRejected: 3 });
      expect(await idsByDay(root)).toEqual({ '2026-11-20': [1n] });
    });
  });
});

/** The id (as exported) of every rejected row. */
function rejectedIds(report: ExportReport): string[] {
  const path = report.datasets[0]!.rejectsFile;
  if (!path) return [];
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { record: { id: string } }).record.id);
}
