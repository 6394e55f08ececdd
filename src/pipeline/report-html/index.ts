import { join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import type { RunReport } from '../report.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import type { JournalEvent } from '../state/events.js';
import { readJournal } from '../state/journal.js';
import { groupRejects } from './reject-groups.js';
import { renderReportPage } from './render-page.js';
import { eventsOfRun, isTimelineEvent, runTimeline } from './run-timeline.js';
import { timelineSeries } from './timeline-series.js';

export const REPORT_HTML = 'report.html';

/**
 * Writes `report.html` beside report.json in the run folder: counts and their invariant, rejects grouped by
 * reason, charts from the journal's timestamped events, verification. Returns the file's path.
 */
export async function writeReportHtml(report: RunReport, journalFile: string): Promise<string> {
  // Only what the timeline draws: a migration's journal also holds two events a reply.
  const { events } = await readJournal<JournalEvent>(journalFile, isTimelineEvent);
  const timeline = runTimeline(eventsOfRun(events, report.runId), Date.parse(report.endedAt));
  const rejects = report.rejectsFile ? await groupRejects(report.rejectsFile) : { records: 0, groups: [], more: { groups: 0, count: 0 } };
  const file = join(report.runDir, REPORT_HTML);
  await writeFileAtomic(file, renderReportPage({ report, rejects, series: timelineSeries(timeline) }));
  return file;
}

/** writeReportHtml at the end of a run: a page that cannot be written is logged, and does not change the run's outcome. */
export async function writeRunPage(report: RunReport, journalFile: string, logger: Logger): Promise<void> {
  try {
    logger.info({ file: await writeReportHtml(report, journalFile) }, 'report.html written');
  } catch (error) {
    logger.warn({ err: error }, 'report.html could not be written; report.json has the figures');
  }
}
