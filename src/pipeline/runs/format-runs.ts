import { formatDuration } from '../report.js';
import type { PruneResult } from './prune-runs.js';
import type { RunEntry } from './list-runs.js';

/** `chatport runs list` as people read it: one run a line, newest last. Pure. */
export function formatRunList(stateDir: string, runs: readonly RunEntry[]): string {
  if (runs.length === 0) return `no runs in ${stateDir}\n`;
  const header = ['run', 'started', 'status', 'attempts', 'duration', 'read', 'imported', 'rejected', 'on disk'];
  const rows = runs.map((r) => [
    r.runId, r.startedAt ?? '-', r.status, String(r.attempts), r.durationMs !== undefined ? formatDuration(r.durationMs) : '-',
    ...(['read', 'imported', 'rejected'] as const).map((k) => (r.totals ? String(r.totals[k]) : '-')), formatBytes(r.bytes),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  const total = runs.reduce((n, r) => n + r.bytes, 0);
  return `${[line(header), ...rows.map(line), `${runs.length} run(s), ${formatBytes(total)} in ${stateDir}/runs`].join('\n')}\n`;
}

/** What `chatport runs prune` removed and freed. Pure. */
export function formatPrune(result: PruneResult, dryRun: boolean): string {
  const verb = dryRun ? 'would remove' : 'removed';
  const out = result.removed.map((r) => `${verb} ${r.runId} (${r.status}, ${r.startedAt ?? 'start unknown'}): ${formatBytes(r.bytes)}  ${r.runDir}`);
  out.push(`${dryRun ? 'would free' : 'freed'} ${formatBytes(result.bytesFreed)} (${result.bytesFreed} bytes) in ${result.removed.length} run(s); ${result.kept.length} kept`);
  return `${out.join('\n')}\n`;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}
