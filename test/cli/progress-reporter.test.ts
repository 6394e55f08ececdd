import { describe, expect, it } from 'vitest';
import { createProgressReporter } from '../../src/cli/progress.js';
import { emptyCounts } from '../../src/pipeline/report.js';
import { createSilentLogger } from '../../src/shared/logger.js';

/** A stand-in terminal: records what is written (log-update writes escape codes and lines). */
function fakeTerminal(columns: number) {
  const writes: string[] = [];
  const stream = { isTTY: true, columns, rows: 24, write: (s: string) => writes.push(s) > 0 } as unknown as NodeJS.WriteStream;
  // eslint-disable-next-line no-control-regex
  const text = () => writes.join('').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  return { stream, writes, text };
}

describe('the live progress area on a terminal', () => {
  it('prints notices above the area, fits the width, and clears itself once at the end', () => {
    const term = fakeTerminal(80);
    let clock = 0;
    let notice: ((line: string) => void) | undefined;
    const progress = createProgressReporter({ stream: term.stream, logger: createSilentLogger(), now: () => clock, notices: (w) => (notice = w) });
    progress.onProgress('users', { ...emptyCounts(), read: 1_000_000, imported: 1_000_000, durationMs: 41_000, jobs: { submitted: 200, finished: 200, failed: 0 } });
    clock += 1_000;
    progress.onProgress('messages', { ...emptyCounts(), read: 5, durationMs: 10, bytesRead: 1, bytesTotal: 10 });
    notice!('warning: a column is unused');
    const lines = term.text().split('\n').filter((l) => l !== '');
    expect(lines.every((l) => l.length < 80)).toBe(true);
    expect(lines).toContain('warning: a column is unused');
    expect(lines.at(-2)).toMatch(/^users\s+done in 41\.0s .*24,390 rec\/s/);
    progress.stop();
    expect(notice).toBeUndefined();
    const written = term.writes.length;
    progress.stop();
    progress.onProgress('messages', { ...emptyCounts(), read: 9 });
    expect(term.writes.length).toBe(written);
  });
});
