import type { DiscordFile } from './plan.js';

/**
 * Whether a channel's own files cover a moment: a message of the channel made then would be in one of
 * them. DiscordChatExporter's `--after`/`--before` take messages strictly after/before (`dateRange`, null
 * when not given). A thread whose starter's time is covered but has no record of it lost its starter (it
 * was deleted); one whose starter is older than an `--after` export's range has it on the platform from an
 * earlier run, and its messages go into that thread (the roots step finds it by its key).
 */
export function coveredByOwnFiles(files: readonly DiscordFile[], ms: number): boolean {
  return files.some((f) => f.threadId === undefined && boundOf(f.dateRange?.after, -Infinity) < ms && ms < boundOf(f.dateRange?.before, Infinity));
}

function boundOf(value: unknown, none: number): number {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? none : ms;
}
