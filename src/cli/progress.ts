import { createLogUpdate } from 'log-update';
import { formatDuration, type StageCounts } from '../pipeline/report.js';
import type { StageName } from '../pipeline/state/events.js';
import type { Logger } from '../shared/logger.js';

export interface ProgressReporter {
  onProgress(stage: StageName, counts: StageCounts): void;
  stop(): void;
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** Share of the input read and the time left at the pace so far (reading is paced by uploads). */
function share(c: StageCounts): string {
  if (!c.bytesTotal) return '    ';
  const done = Math.min(1, c.bytesRead / c.bytesTotal);
  const elapsed = c.durationMs;
  const eta = done > 0 && done < 1 && elapsed > 0 ? ` ETA ${formatDuration((elapsed * (1 - done)) / done)}` : '';
  return `${(done * 100).toFixed(0).padStart(3)}%${eta}`;
}

/**
 * Progress for people and for machines. On a TTY: a live block on stderr, one line per stage, redrawn at
 * most ten times a second. Otherwise: one pino `progress` line per stage at a steady interval (default
 * 10 s), so a scheduler's log shows the run moving without a flood.
 */
export function createProgressReporter(options: { stream: NodeJS.WriteStream; logger: Logger; intervalMs?: number; now?: () => number }): ProgressReporter {
  const now = options.now ?? Date.now;
  const latest = new Map<StageName, { counts: StageCounts; since: number }>();
  const line = (stage: StageName, c: StageCounts, since: number) => {
    const seconds = Math.max(0.001, (now() - since) / 1000);
    const rate = Math.round(c.read / seconds);
    return `${stage.padEnd(9)} ${share(c)} read ${fmt(c.read).padStart(11)}  rejected ${fmt(c.rejected).padStart(7)}  skipped ${fmt(c.skipped).padStart(7)}  imported ${fmt(c.imported).padStart(11)}  chunks ${fmt(c.chunks).padStart(6)}  jobs ${c.jobs.finished}/${c.jobs.submitted}${c.jobs.failed ? ` (${c.jobs.failed} failed)` : ''}  ${fmt(rate)} rec/s`;
  };
  const track = (stage: StageName, counts: StageCounts) => {
    const seen = latest.get(stage);
    latest.set(stage, { counts: { ...counts, jobs: { ...counts.jobs } }, since: seen?.since ?? now() });
  };

  if (options.stream.isTTY) {
    const render = createLogUpdate(options.stream);
    let last = 0;
    return {
      onProgress(stage, counts) {
        track(stage, counts);
        if (now() - last < 100) return;
        last = now();
        render([...latest].map(([s, v]) => line(s, v.counts, v.since)).join('\n'));
      },
      stop() {
        render([...latest].map(([s, v]) => line(s, v.counts, v.since)).join('\n'));
        render.done();
      },
    };
  }

  const timer = setInterval(() => {
    for (const [stage, v] of latest) options.logger.info({ event: 'progress', stage, counts: v.counts }, line(stage, v.counts, v.since));
  }, options.intervalMs ?? 10_000);
  timer.unref();
  return { onProgress: track, stop: () => clearInterval(timer) };
}
