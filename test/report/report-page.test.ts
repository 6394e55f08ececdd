import { describe, expect, it } from 'vitest';
import { emptyCounts, sumTotals, type RunReport } from '../../src/pipeline/report.js';
import { renderReportPage } from '../../src/pipeline/report-html/render-page.js';
import { eventsOfRun, runTimeline } from '../../src/pipeline/report-html/run-timeline.js';
import { timelineSeries } from '../../src/pipeline/report-html/timeline-series.js';
import type { JournalEvent } from '../../src/pipeline/state/events.js';

/** Pure parts of report.html: what the journal's events become, and the page's text. */
const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();

function report(overrides: Partial<RunReport> = {}): RunReport {
  const stages = { users: { ...emptyCounts(), read: 3, imported: 3 } };
  return { runId: 'R1', pipeline: 'p', status: 'succeeded', attempt: 1, startedAt: at(0), endedAt: at(10), durationMs: 10_000, stages, totals: sumTotals(stages), runDir: '/s/runs/R1', ...overrides };
}

describe('report.html parts', () => {
  it('takes only the run’s events, counts split parts by their share, and keeps jobs still in flight', () => {
    const events: JournalEvent[] = [
      { t: 'run-started', runId: 'R0', pipeline: 'p', at: at(-100), attempt: 1 },
      { t: 'chunk-written', stage: 'users', seq: 0, file: 'f', records: 99, bytes: 1, sha256: 'x' },
      { t: 'run-ended', runId: 'R0', status: 'succeeded', at: at(-90) },
      { t: 'run-started', runId: 'R1', pipeline: 'p', at: at(0), attempt: 1 },
      { t: 'chunk-written', stage: 'users', seq: 0, file: 'f', records: 5, bytes: 1, sha256: 'y' },
      { t: 'part-submitted', stage: 'users', seq: 0, part: '', jobId: 1, at: at(1) },
      { t: 'part-ended', stage: 'users', seq: 0, part: '', jobId: 1, state: 'FAILED', at: at(2) },
      { t: 'part-submitted', stage: 'users', seq: 0, part: '0', jobId: 2, at: at(2) },
      { t: 'part-ended', stage: 'users', seq: 0, part: '0', jobId: 2, state: 'FINISHED', at: at(4) },
      { t: 'part-submitted', stage: 'users', seq: 0, part: '1', jobId: 3, at: at(4) },
      { t: 'upload-pacing', stage: 'users', concurrency: 1, rateLimited: 3, at: at(5) },
    ];
    const timeline = runTimeline(eventsOfRun(events, 'R1'), Date.parse(at(10)));
    expect(timeline.jobs.map((j) => [j.records, j.state, j.endedAt !== undefined])).toEqual([[5, 'FAILED', true], [3, 'FINISHED', true], [2, undefined, false]]);
    expect(timeline.pacing).toEqual([{ stage: 'users', at: Date.parse(at(5)), concurrency: 1, newRateLimited: 3 }]);
    expect([timeline.start, timeline.end]).toEqual([Date.parse(at(0)), Date.parse(at(10))]);
    const series = timelineSeries(timeline, 10);
    expect(series.throughput[0]!.points[4]).toEqual([4.5, 3]); // 3 records FINISHED in the 5th second
    expect(series.rateLimited[0]!.points.map((p) => p[1])).toEqual([0, 0, 0, 0, 0, 3, 0, 0, 0, 0]);
    expect(series.inFlight[0]!.points.map((p) => p[1])).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(series.durations.map((d) => d.points)).toEqual([[[4, 2]], [[2, 1]]]);
  });

  it('escapes what the input put into rejects, so a record cannot inject markup', () => {
    const page = renderReportPage({
      report: report({ status: 'completed-with-rejects' }),
      rejects: { records: 1, groups: [{ stage: 'users', kind: 'invalid', field: 'name', expected: 'a <name>', count: 1, examples: [{ file: 'u<1>.csv', line: 2, index: 0, found: '"<script>alert(1)</script>"', message: 'bad & <b>' }] }], more: { groups: 0, count: 0 } },
      series: timelineSeries(runTimeline([], Date.parse(at(10)))),
    });
    expect(page).not.toContain('<script');
    expect(page).toContain('&quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;');
    expect(page).toContain('<code>u&lt;1&gt;.csv:2</code>');
    expect(page).toContain("default-src 'none'");
    expect(page.match(/none in this run/g)).toHaveLength(4);
  });

  it('says so when the counts do not add up', () => {
    const stages = { users: { ...emptyCounts(), read: 4, imported: 3 } };
    const page = renderReportPage({ report: report({ stages, totals: sumTotals(stages) }), rejects: { records: 0, groups: [], more: { groups: 0, count: 0 } }, series: timelineSeries(runTimeline([], 0)) });
    expect(page).toContain('ACCOUNTING MISMATCH');
    expect(page).toContain('users: read 4 ≠ imported 3 + duplicates 0 + rejected 0 + skipped 0 ✗');
  });
});
