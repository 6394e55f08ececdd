/**
 * Incremental exports (`--incremental`): a state folder remembers the last window exported, so that
 * nightly runs neither miss nor double a day. The next run exports [last until, today's UTC midnight):
 * whole days up to yesterday; after missed nights it catches up every missing day in one run, and a
 * second run the same day has nothing to do. The state is written only after every dataset of the
 * window was published, atomically (written aside, flushed, renamed), so a failed run is simply run
 * again over the same window (each day's partition is replaced, never doubled).
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChatportError, ConfigError, UsageError } from '../../shared/errors.js';
import { DAY_MS, describeWindow, utcDay, utcDayStart, type ExportWindow } from './export-window.js';
import { readTextIfExists } from '../../shared/read-if-exists.js';

export const STATE_FILE = 'export-state.json';

export interface IncrementalState {
  version: 1;
  /** What the state belongs to: a run with another destination, format or datasets is refused. */
  to: string;
  format: string;
  datasets: string[];
  /** The last window published, ISO timestamps (UTC midnights). */
  lastWindow: { since: string; until: string };
  runId: string;
  publishedAt: string;
}

export interface IncrementalScope {
  to: string;
  format: string;
  datasets: readonly string[];
}

/** The default state folder: `.chatport/export-<pipeline name, or the dataset argument>`. */
export function defaultStateDir(name: string): string {
  return join('.chatport', `export-${name}`);
}

export async function readIncrementalState(dir: string): Promise<IncrementalState | undefined> {
  const path = join(dir, STATE_FILE);
  const text = await readTextIfExists(path);
  if (text === undefined) return undefined;
  try {
    const state = JSON.parse(text) as IncrementalState;
    if (state.version !== 1 || Number.isNaN(Date.parse(state.lastWindow.until))) throw new Error('not a version 1 state with lastWindow.until');
    return state;
  } catch (error) {
    throw new ChatportError(`${path}: not a readable export state (${(error as Error).message}); fix it, or remove it and give --since for the first window`, {
      code: 'DATA_INVALID',
      details: { path },
      cause: error,
    });
  }
}

/** Refuses a state folder that belongs to another export (another --to, format or datasets). */
export function checkStateScope(state: IncrementalState, scope: IncrementalScope, dir: string): void {
  const same = state.to === scope.to && state.format === scope.format && state.datasets.join(',') === [...scope.datasets].join(',');
  if (!same)
    throw new ConfigError(
      `the state folder ${dir} belongs to an export of ${state.datasets.join('+')} to ${state.to} (${state.format}), not ${scope.datasets.join('+')} to ${scope.to} (${scope.format}); give this export its own --state`,
      { dir, state: { to: state.to, format: state.format, datasets: state.datasets }, run: scope },
    );
}

/**
 * The window due now: [last until, today's UTC midnight); without a state, yesterday, or [since, today)
 * when `firstSinceMs` is given. Undefined when nothing is due (already exported up to today).
 */
export function dueWindow(state: IncrementalState | undefined, nowMs: number, firstSinceMs?: number): ExportWindow | undefined {
  const untilMs = utcDayStart(nowMs);
  if (state && firstSinceMs !== undefined)
    throw new UsageError(`--since applies to the first incremental run only: the state already reaches ${state.lastWindow.until}`, { lastWindow: state.lastWindow });
  const sinceMs = state ? Date.parse(state.lastWindow.until) : (firstSinceMs ?? untilMs - DAY_MS);
  return sinceMs < untilMs ? { sinceMs, untilMs } : undefined;
}

export function nothingToDoMessage(state: IncrementalState | undefined, nowMs: number): string {
  const through = state ? utcDay(Date.parse(state.lastWindow.until) - DAY_MS) : utcDay(nowMs);
  return `nothing to do: every whole UTC day up to ${through} is exported already; the next day is due after ${new Date(utcDayStart(nowMs) + DAY_MS).toISOString()}`;
}

/** Written aside, flushed, then renamed over the old state: a crash leaves the old or the new, never half. */
export async function saveIncrementalState(dir: string, scope: IncrementalScope, window: ExportWindow, runId: string, nowMs: number): Promise<IncrementalState> {
  const { since, until } = describeWindow(window);
  const state: IncrementalState = { version: 1, to: scope.to, format: scope.format, datasets: [...scope.datasets], lastWindow: { since, until }, runId, publishedAt: new Date(nowMs).toISOString() };
  await mkdir(dir, { recursive: true });
  const path = join(dir, STATE_FILE);
  const aside = `${path}.${runId}.tmp`;
  await writeFile(aside, `${JSON.stringify(state, null, 2)}\n`, { flush: true });
  await rename(aside, path);
  return state;
}

/**
 * Makes the state folder and writes a file in it, before any export job starts: a folder that cannot be
 * written (a read-only root file system without a volume there) would otherwise fail the run only after
 * every dataset was published, and every later run the same way, the state never moving.
 */
export async function checkStateFolderWritable(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const probe = join(dir, `.write-check-${process.pid}.tmp`);
  await writeFile(probe, '');
  await rm(probe, { force: true });
}
