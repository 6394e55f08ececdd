import { formatDuration, type StageCounts } from '../pipeline/report.js';

/** One stage as the live area shows it; `done` once the stage finished (its figures are final). */
export interface StageView {
  stage: string;
  counts: StageCounts;
  done: boolean;
}

const full = (n: number) => n.toLocaleString('en-US');
/** 1,234,567 → 1.23M: for narrow terminals. */
const compact = (n: number) => (n < 10_000 ? String(n) : n < 1e6 ? `${(n / 1e3).toFixed(n < 1e5 ? 1 : 0)}k` : `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)}M`);

/** Records per second over the stage's own duration: a finished stage keeps its final rate. */
function rate(c: StageCounts): number | undefined {
  return c.durationMs >= 1 ? Math.round((c.read * 1000) / c.durationMs) : undefined;
}

function status(v: StageView): string {
  if (v.done) return `done in ${formatDuration(v.counts.durationMs)}`;
  const c = v.counts;
  if (!c.bytesTotal) return '';
  const share = Math.min(1, c.bytesRead / c.bytesTotal);
  const eta = share > 0 && share < 1 && c.durationMs > 0 ? ` ETA ${formatDuration((c.durationMs * (1 - share)) / share)}` : '';
  return `${(share * 100).toFixed(0).padStart(3)}%${eta}`;
}

/** The segments of a line, most important first; optional ones are left out, last first, until the line fits. */
function segments(v: StageView, num: (n: number) => string): Array<{ text: string; optional: boolean }> {
  const c = v.counts;
  const r = rate(c);
  const jobs = `jobs ${num(c.jobs.finished)}/${num(c.jobs.submitted)}${c.jobs.failed ? ` (${num(c.jobs.failed)} failed)` : ''}`;
  const parts: Array<[string, boolean]> = [
    [v.stage.padEnd(8), false],
    [status(v), false],
    [`read ${num(c.read)}`, false],
    [`imported ${num(c.imported)}`, false],
    [c.rejected ? `rejected ${num(c.rejected)}` : '', false],
    [r === undefined ? '' : `${num(r)} rec/s`, true],
    [c.jobs.submitted || c.jobs.finished ? jobs : '', true],
    [c.skipped ? `skipped ${num(c.skipped)}` : '', true],
    [c.duplicates ? `duplicates ${num(c.duplicates)}` : '', true],
    [c.pending && !v.done ? `pending ${num(c.pending)}` : '', true],
  ];
  return parts.filter(([text]) => text !== '').map(([text, optional]) => ({ text, optional }));
}

/**
 * One line per stage, each at most `width` characters: full numbers while they fit, then compact ones
 * (1.23M), then the optional figures left out, then the line cut with `…`. Pure.
 */
export function formatProgressLine(view: StageView, width = Infinity): string {
  for (const num of [full, compact]) {
    const parts = segments(view, num);
    while (true) {
      const line = parts.map((p) => p.text).join('  ');
      if (line.length <= width) return line;
      const last = parts.map((p) => p.optional).lastIndexOf(true);
      if (last === -1) break;
      parts.splice(last, 1);
    }
  }
  const line = segments(view, compact).filter((p) => !p.optional).map((p) => p.text).join(' ');
  return line.length <= width ? line : `${line.slice(0, Math.max(0, width - 1))}…`;
}
