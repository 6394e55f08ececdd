/**
 * CPU and peak memory of another process (the sandbox, in its own process), read from /proc: how much the
 * platform side costs while chatport imports into it.
 */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU the process has used so far, in ms. */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** The process's peak RSS so far (VmHWM), MB. */
export function peakRssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmHWM for process ${pid}`);
  return Number(kb[1]) / 1024;
}
