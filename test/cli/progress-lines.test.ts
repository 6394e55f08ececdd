import { describe, expect, it } from 'vitest';
import { formatProgressLine } from '../../src/cli/progress-lines.js';
import { fitTable } from '../../src/pipeline/fit-table.js';
import { emptyCounts, type StageCounts } from '../../src/pipeline/report.js';
import { noticeLine } from '../../src/cli/notice-line.js';

const counts = (over: Partial<StageCounts>): StageCounts => ({ ...emptyCounts(), ...over });
const busy = counts({ read: 1_234_567, imported: 1_200_000, rejected: 12, skipped: 3, duplicates: 4, pending: 30_000, jobs: { submitted: 671, finished: 664, failed: 2 }, durationMs: 61_000, bytesRead: 45, bytesTotal: 100 });

describe('the live area fits the terminal', () => {
  it('says everything when there is room', () => {
    expect(formatProgressLine({ stage: 'messages', counts: busy, done: false })).toBe(
      'messages   45% ETA 1m15s  read 1,234,567  imported 1,200,000  rejected 12  20,239 rec/s  jobs 664/671 (2 failed)  skipped 3  duplicates 4  pending 30,000',
    );
  });

  it.each([100, 80, 60, 40, 20])('never goes past %i columns', (width) => {
    const line = formatProgressLine({ stage: 'messages', counts: busy, done: false }, width);
    expect(line.length).toBeLessThanOrEqual(width);
    expect(line.startsWith('messages')).toBe(true);
  });

  it('a finished stage shows its final rate, however long the run goes on', () => {
    const done = counts({ read: 1_000_000, imported: 1_000_000, durationMs: 41_000, jobs: { submitted: 200, finished: 200, failed: 0 } });
    expect(formatProgressLine({ stage: 'users', counts: done, done: true }, 99)).toBe('users     done in 41.0s  read 1,000,000  imported 1,000,000  24,390 rec/s  jobs 200/200');
  });
});

describe('fitTable', () => {
  const header = ['stage', 'read', 'imported', '(updated)', 'duplicates', 'time'];
  const rows = [['users', '3', '3', '0', '0', '40ms'], ['total', '3', '3', '0', '0', '41ms']];
  const droppableWhenZero = new Set(['(updated)', 'duplicates']);

  it('keeps every column when they fit, leaves out zero breakdowns when not, then stacks', () => {
    expect(fitTable(header, rows, { droppableWhenZero })[0]).toBe('stage  read  imported  (updated)  duplicates  time');
    expect(fitTable(header, rows, { width: 40, droppableWhenZero })).toEqual(['stage  read  imported  time', 'users     3         3  40ms', 'total     3         3  41ms']);
    const stacked = fitTable(header, rows, { width: 20, droppableWhenZero });
    expect(stacked.slice(0, 4)).toEqual(['users', '  read      3', '  imported  3', '  time      40ms']);
    expect(stacked.every((l) => l.length <= 20)).toBe(true);
  });
});

describe('noticeLine', () => {
  it('turns a warning into one readable line and leaves info out', () => {
    expect(noticeLine('{"level":"warn","msg":"a column\\nis unused","stage":"users","line":5}', 40)).toBe('warning: a column is unused (stage users, line 5)');
    expect(noticeLine('{"level":"info","msg":"stage starting"}', 40)).toBeUndefined();
  });
});
