import { compareTs, type Outcome } from '../../transform/slack/index.js';
import type { RecordPosition } from '../../transform/slack/directory.js';

/**
 * Day files always held when the next one is read: a time zone change moves a message at most two dates
 * (UTC−12 to UTC+14), so these take back every message so filed. Holding more costs CPU on every migration
 * (BENCHMARKS.md, session 29), so more is opt-in.
 */
export const DAYS_ALWAYS_HELD = 2;

/** Messages held back beyond those day files, by default (`slack.reorderWindow`: exports merged by hand). */
export const DEFAULT_REORDER_WINDOW = 0;

/** A mapped day file of one conversation: its outcomes in ts order (those that did not parse, with no ts, first). */
export interface MappedDay<T> {
  file: string;
  outcomes: Outcome<T>[];
}

/** Messages filed later than the window could take back: emitted after later ones (a run warning names them). */
export interface LateBeyondWindow {
  count: number;
  first: RecordPosition;
}

/**
 * Slack files a message by the workspace's local date, so one can sit in a later day file though its ts is
 * earlier than messages of the days before (exports merged across time zones, up to two dates apart; exports
 * merged by hand). The platform orders a channel by arrival, so a conversation's mapped day files are held in a
 * window and a later day file's messages earlier than the window's last move back into the held day they fall
 * in, by ts (docs/slack-migration.md "Day files in ts order"). The window keeps the DAYS_ALWAYS_HELD newest
 * day files, and more before those while they hold at most `maxHeld` messages (a memory bound:
 * one conversation is read at a time); a message earlier than what already left the window lands first among what is held, out of order, and is
 * counted in `late`. Keys and `outOfOrder` are decided by the mapping, in file order, as before.
 */
export class DayWindow<T> {
  private readonly days: MappedDay<T>[] = [];
  private held = 0;
  private emittedUpTo: string | undefined;
  late: LateBeyondWindow | undefined;

  constructor(private readonly maxHeld: number) {}

  /** Takes the next day file; returns the day files that leave the window, oldest first. */
  add(day: MappedDay<T>): MappedDay<T>[] {
    this.takeEarlier(day);
    this.days.push(day);
    this.held += day.outcomes.length;
    const out: MappedDay<T>[] = [];
    while (this.days.length > DAYS_ALWAYS_HELD && this.heldBeyondAlways() > this.maxHeld) out.push(this.emit());
    return out;
  }

  /** Messages held in the day files before the DAYS_ALWAYS_HELD newest. */
  private heldBeyondAlways(): number {
    let always = 0;
    for (let d = this.days.length - 1; d >= 0 && d >= this.days.length - DAYS_ALWAYS_HELD; d--) always += this.days[d]!.outcomes.length;
    return this.held - always;
  }

  /** The conversation's end: every held day file, oldest first. */
  finish(): MappedDay<T>[] {
    const out: MappedDay<T>[] = [];
    while (this.days.length > 0) out.push(this.emit());
    return out;
  }

  private emit(): MappedDay<T> {
    const day = this.days.shift()!;
    this.held -= day.outcomes.length;
    const last = lastTsOf(day.outcomes);
    if (last !== undefined && (this.emittedUpTo === undefined || compareTs(last, this.emittedUpTo) > 0)) this.emittedUpTo = last;
    return day;
  }

  /** Moves `next`'s outcomes earlier than the window's last into the held day they fall in (`next` keeps the rest, in place). */
  private takeEarlier(next: MappedDay<T>): void {
    const last = this.lastHeldTs();
    if (last === undefined) return;
    const moved: Outcome<T>[] = [];
    let kept = 0;
    for (const outcome of next.outcomes) {
      if (outcome.ts !== undefined && compareTs(outcome.ts, last) < 0) moved.push(outcome);
      else next.outcomes[kept++] = outcome;
    }
    next.outcomes.length = kept;
    if (moved.length === 0) return;
    this.held += moved.length;
    // Each held day takes the moved ones earlier than its last (and not taken by a day before it); moved is in ts order.
    let m = 0;
    for (const [d, day] of this.days.entries()) {
      const dayLast = lastTsOf(day.outcomes);
      const end = d === this.days.length - 1 ? moved.length : untilTs(moved, m, dayLast);
      if (end === m) continue;
      const group = moved.slice(m, end);
      if (d === 0) this.noteLate(group);
      day.outcomes = mergedByTs(day.outcomes, group);
      m = end;
    }
  }

  private noteLate(group: readonly Outcome<T>[]): void {
    if (this.emittedUpTo === undefined) return;
    for (const outcome of group) {
      if (compareTs(outcome.ts!, this.emittedUpTo) >= 0) break;
      if (this.late === undefined) this.late = { count: 0, first: outcome.position };
      this.late.count++;
    }
  }

  private lastHeldTs(): string | undefined {
    for (let d = this.days.length - 1; d >= 0; d--) {
      const last = lastTsOf(this.days[d]!.outcomes);
      if (last !== undefined) return last;
    }
    return undefined;
  }
}

/** The index after the moved outcomes from `from` whose ts is earlier than `last` (none when the day has no ts). */
function untilTs<T>(moved: readonly Outcome<T>[], from: number, last: string | undefined): number {
  let at = from;
  if (last === undefined) return at;
  while (at < moved.length && compareTs(moved[at]!.ts!, last) < 0) at++;
  return at;
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
