import { spawn } from 'node:child_process';
import { benchLib } from './paths.js';

export interface Measured {
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
  /** The most heap in use right after a full GC (the live data at its largest); 0 when no full GC ran. */
  liveHeapMaxMb: number;
  majorGcs: number;
  /**
   * The highest RSS sampled (every 500 ms) in each quarter of the run, MB, null where a short run has no
   * sample: flat memory shows as four close figures.
   */
  rssByQuarterMb: Array<number | null>;
  code: number | null;
  stdout: string;
  stderrTail: string;
}

const CHILD = benchLib('measured-child.mjs');

/** Runs `node <script> args` in a child process and measures its wall time, CPU time and peak RSS. */
/** Quarters of rssByQuarterMb as text, `–` where there was no sample. */
export function formatQuarters(quarters: ReadonlyArray<number | null>): string {
  return quarters.map((q) => (q === null ? '–' : String(q))).join(' / ');
}

export function runMeasured(script: string, args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<Measured> {
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, CHILD, script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d;
    if (stderr.length > 1_000_000) stderr = stderr.slice(-100_000);
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = stderr.split('\n').find((l) => l.startsWith('@@usage '));
      if (!line) return reject(new Error(`no usage line from ${script} (exit ${code}):\n${stderr.slice(-3000)}`));
      const u = JSON.parse(line.slice(8)) as { userCpuMs: number; sysCpuMs: number; maxRssKb: number; liveHeapMaxKb: number; majorGcs: number; rssByQuarterMb: Array<number | null> };
      resolve({ wallMs: performance.now() - started, cpuMs: u.userCpuMs + u.sysCpuMs, maxRssMb: u.maxRssKb / 1024, liveHeapMaxMb: u.liveHeapMaxKb / 1024, majorGcs: u.majorGcs, rssByQuarterMb: u.rssByQuarterMb, code, stdout, stderrTail: stderr.slice(-3000) });
    });
  });
}
