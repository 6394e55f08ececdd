import { createLogUpdate } from 'log-update';
import type { StageCounts } from '../pipeline/report.js';
import type { StageName } from '../pipeline/state/events.js';
import type { Logger } from '../shared/logger.js';
import { formatProgressLine, type StageView } from './progress-lines.js';

const STAGE_ORDER: readonly StageName[] = ['users', 'channels', 'members', 'messages'];

export interface ProgressReporter {
  onProgress(stage: StageName, counts: StageCounts): void;
  /** Ends the display; on a terminal the live area is cleared (the final report replaces it). Idempotent. */
  stop(): void;
}

/** Where readable log notices go while the live area is drawn (see CliLogging.setNoticeWriter). */
export type NoticeSink = (write: ((line: string) => void) | undefined) => void;

/**
 * Progress for people and for machines. On a TTY: a live area on stderr, one line per stage that fits
 * the terminal's width, redrawn in place at most ten times a second; log notices are printed above it.
 * Otherwise: one pino `progress` line per stage at a steady interval (default 10 s), so a scheduler's log
 * shows the run moving without a flood.
 */
export function createProgressReporter(options: { stream: NodeJS.WriteStream; logger: Logger; intervalMs?: number; now?: () => number; notices?: NoticeSink }): ProgressReporter {
  const now = options.now ?? Date.now;
  const latest = new Map<StageName, StageCounts>();
  const views = (): StageView[] => {
    const started = STAGE_ORDER.filter((s) => latest.has(s));
    // Stages run in order: one that a later stage follows has finished, and its figures are final.
    return started.map((stage, i) => ({ stage, counts: latest.get(stage)!, done: i < started.length - 1 }));
  };
  const track = (stage: StageName, counts: StageCounts) => {
    latest.set(stage, { ...counts, jobs: { ...counts.jobs } });
  };

  if (options.stream.isTTY) {
    const stream = options.stream;
    const render = createLogUpdate(stream);
    // One column spare: a line exactly as wide as the terminal leaves the cursor in its wrap state.
    const frame = () => views().map((v) => formatProgressLine(v, Math.max(20, (stream.columns || 80) - 1))).join('\n');
    let last = -Infinity;
    let stopped = false;
    options.notices?.((line) => {
      render.clear();
      stream.write(`${line}\n`);
      render(frame());
    });
    return {
      onProgress(stage, counts) {
        track(stage, counts);
        if (stopped || now() - last < 100) return;
        last = now();
        render(frame());
      },
      stop() {
        if (stopped) return;
        stopped = true;
        options.notices?.(undefined);
        render.clear();
        render.done();
      },
    };
  }

  const timer = setInterval(() => {
    for (const v of views()) options.logger.info({ event: 'progress', stage: v.stage, counts: v.counts }, formatProgressLine(v));
  }, options.intervalMs ?? 10_000);
  timer.unref();
  return { onProgress: track, stop: () => clearInterval(timer) };
}
