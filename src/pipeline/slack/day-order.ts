import { compareTs, type Outcome } from '../../transform/slack/index.js';

/**
 * Slack files a message by the workspace's local date, so one near midnight can sit in the next day file
 * though its ts is earlier than the last of the day before (exports merged across a time zone change). The
 * platform orders a channel by arrival, so a day file is held until the next one is mapped, and the next
 * one's messages earlier than the held day's last move into it, by ts (docs/slack-migration.md "Day files
 * in ts order"). Two day files per channel at most; keys and `outOfOrder` are decided by the mapping as
 * before. `next` keeps the rest, in place; returns the held day's outcomes with the moved ones merged in.
 */
export function withEarlierOfNext<T>(held: Outcome<T>[], next: Outcome<T>[]): Outcome<T>[] {
  const last = lastTsOf(held);
  if (last === undefined) return held;
  const moved: Outcome<T>[] = [];
  let kept = 0;
  for (const outcome of next) {
    if (outcome.ts !== undefined && compareTs(outcome.ts, last) < 0) moved.push(outcome);
    else next[kept++] = outcome;
  }
  next.length = kept;
  return moved.length === 0 ? held : mergedByTs(held, moved);
}

/** A day's last ts: its outcomes are in ts order after those that did not parse (no ts), which come first. */
function lastTsOf(day: readonly Outcome<unknown>[]): string | undefined {
  for (let i = day.length - 1; i >= 0; i--) if (day[i]!.ts !== undefined) return day[i]!.ts;
  return undefined;
}

/** Both in ts order (`held` with outcomes of no ts first, kept first); a moved one goes before the held ones of a later ts only. */
function mergedByTs<T>(held: readonly Outcome<T>[], moved: readonly Outcome<T>[]): Outcome<T>[] {
  const out: Outcome<T>[] = [];
  let m = 0;
  for (const outcome of held) {
    while (outcome.ts !== undefined && m < moved.length && compareTs(moved[m]!.ts!, outcome.ts) < 0) out.push(moved[m++]!);
    out.push(outcome);
  }
  while (m < moved.length) out.push(moved[m++]!);
  return out;
}
