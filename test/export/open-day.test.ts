/**
 * A day not yet over: `--date today` (or any date whose UTC day had not ended when its export was asked
 * for) holds the day only up to then. The partition is published, but the report warns and the manifest
 * says `dayComplete: false`, so a loader can wait for the date's later, whole export. The clock is injected.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatExportReport, runExport } from '../../src/pipeline/export/index.js';
import { readManifest } from './read-output.js';
import { BED_DAY, BED_NOW, startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
beforeAll(async () => {
  bed = await startExportBed({}, { users: 2, messages: 3 });
});
afterAll(() => bed.close());

const NEXT_MIDNIGHT = Date.parse(`${BED_DAY}T00:00:00Z`) + 86_400_000;

async function exportAt(nowMs: number) {
  const root = bed.tempDir();
  const report = await runExport({ datasets: ['messages', 'users'], to: root, format: 'ndjson', date: BED_DAY, job: { pollIntervalMs: 5 } }, { client: bed.client, now: () => nowMs });
  return { report, messages: readManifest(root, 'messages', BED_DAY), users: readManifest(root, 'users', BED_DAY) };
}

it('publishes a day not yet over marked incomplete, and warns', async () => {
  const { report, messages, users } = await exportAt(BED_NOW);
  const [m, u] = report.datasets;
  expect(m!.rowsWritten).toBe(bed.messages.length);
  expect(m!.openDays).toEqual([BED_DAY]);
  expect(messages.details).toMatchObject({ dayComplete: false });
  // The users snapshot is no day's rows: it says when it was taken instead.
  expect(u!.openDays).toEqual([]);
  expect(users.details).toMatchObject({ dayComplete: null });
  expect(formatExportReport(report)).toContain(`messages: warning: dt=${BED_DAY} was not over when its export was asked for`);
});

it('marks a day complete once it had ended when its export was asked for', async () => {
  const { report, messages } = await exportAt(NEXT_MIDNIGHT);
  expect(report.datasets[0]!.openDays).toEqual([]);
  expect(messages.details).toMatchObject({ dayComplete: true });
  expect(formatExportReport(report)).not.toContain('warning');
});
