/**
 * The time window of an export run: half-open [since, until) in UTC, always whole UTC days, because the
 * output is partitioned by day (`dt=YYYY-MM-DD`) and a partition is replaced as a whole: a window that
 * started at noon would replace a day's partition with half of that day. Pure.
 */
import { UsageError } from '../../shared/errors.js';
import { resolveExportDate } from './export-date.js';
import { parseTimestamp } from './parse-cell.js';
import { DAY_MS, dayOfMicros, utcDay } from './utc-day.js';

export { DAY_MS, dayOfMicros, utcDay };
const DAY_US = 86_400_000_000n;

export interface ExportWindow {
  /** Epoch milliseconds of the first UTC midnight in the window. */
  sinceMs: number;
  /** Epoch milliseconds of the UTC midnight that ends the window (excluded). */
  untilMs: number;
}

export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The window of one UTC day, `YYYY-MM-DD`. */
export function windowOfDate(date: string): ExportWindow {
  const sinceMs = Date.parse(`${date}T00:00:00Z`);
  return { sinceMs, untilMs: sinceMs + DAY_MS };
}

/** Whether the UTC day `date` (`YYYY-MM-DD`) had ended at `atMs`: before, an export holds it only up to then. */
export function dayEnded(date: string, atMs: number): boolean {
  return windowOfDate(date).untilMs <= atMs;
}

/** Every UTC day the window covers, oldest first: the partitions a run writes. */
export function daysOf(window: ExportWindow): string[] {
  const days: string[] = [];
  for (let ms = window.sinceMs; ms < window.untilMs; ms += DAY_MS) days.push(utcDay(ms));
  return days;
}

/** The newest day of the window: the label of the users snapshot and of the rejects file. */
export function lastDayOf(window: ExportWindow): string {
  return utcDay(window.untilMs - DAY_MS);
}

export function describeWindow(window: ExportWindow): { since: string; until: string; days: string[] } {
  return { since: new Date(window.sinceMs).toISOString(), until: new Date(window.untilMs).toISOString(), days: daysOf(window) };
}

/** `YYYY-MM-DD` or an ISO timestamp that is a UTC midnight (`2026-11-21T00:00:00Z`, `…+00:00`). */
export function parseWindowBound(text: string, flag: string): number {
  const parsed = parseTimestamp(text.trim());
  if (!parsed.ok || typeof parsed.value !== 'bigint')
    throw new UsageError(`invalid ${flag} "${text}": expected YYYY-MM-DD or an ISO 8601 timestamp (UTC)`, { [flag]: text });
  if (parsed.value % DAY_US !== 0n)
    throw new UsageError(
      `${flag} "${text}" is not a UTC midnight: partitions (dt=YYYY-MM-DD) are replaced whole, so a window starts and ends at 00:00Z (e.g. ${dayOfMicros(parsed.value)})`,
      { [flag]: text },
    );
  return Number(parsed.value / 1000n);
}

/** The bounds as given, and no days (describeWindow cannot list the days of an inverted window). */
function emptyWindowDetails(window: ExportWindow): { since: string; until: string; days: string[] } {
  return { ...describeWindow({ ...window, untilMs: window.sinceMs }), until: new Date(window.untilMs).toISOString() };
}

/** Checks a window: at least one day, since before until. */
export function checkWindow(window: ExportWindow): ExportWindow {
  if (!(window.untilMs > window.sinceMs))
    throw new UsageError(`empty window: --until (${utcDay(window.untilMs)}) must be after --since (${utcDay(window.sinceMs)}); the window is [since, until)`, emptyWindowDetails(window));
  return window;
}

export interface WindowFlags {
  date?: string;
  /** Where `date` was set, as the user wrote it (default `--date`). */
  dateSource?: string;
  since?: string;
  until?: string;
}

/**
 * `--date D` → that day; `--since S [--until U]` → [S, U), U defaulting to today's UTC midnight (whole
 * days up to yesterday). `--date` and `--since/--until` exclude each other.
 */
export function resolveWindow(flags: WindowFlags, nowMs: number): ExportWindow {
  if (flags.since === undefined && flags.until === undefined) return windowOfDate(resolveExportDate(flags.date, nowMs, flags.dateSource));
  if (flags.date !== undefined) throw new UsageError(`give either ${flags.dateSource ?? '--date'} or --since/--until, not both`);
  if (flags.since === undefined) throw new UsageError('--until needs --since (the window is [since, until), UTC)');
  const sinceMs = parseWindowBound(flags.since, '--since');
  const untilMs = flags.until === undefined ? utcDayStart(nowMs) : parseWindowBound(flags.until, '--until');
  return checkWindow({ sinceMs, untilMs });
}
