import type { Sleep } from '../../src/shared/async.js';

interface Parked {
  until: number;
  wake(): void;
}

/**
 * Virtual time for a sandbox (`clock`) and a client (`now`, `sleep`) together. It moves only when the
 * test steps it: every sleep is held (parked) until then. So no time passes while a request is on its
 * way, and a test can see who waits and until when without racing the wall clock.
 */
export class SteppedClock {
  private at: number;
  private readonly held = new Set<Parked>();

  constructor(start: number) {
    this.at = start;
  }

  readonly now = (): number => this.at;

  readonly sleep: Sleep = (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.held.delete(entry);
        reject(signal?.reason);
      };
      const entry: Parked = {
        until: this.at + Math.max(0, ms),
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.held.add(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  /** The wake times of the sleeps held now. */
  parked(): number[] {
    return [...this.held].map((p) => p.until);
  }

  /** Moves time to the earliest wake time (never back) and wakes every sleep due by then. */
  wakeNext(): void {
    if (this.held.size === 0) return;
    this.at = Math.max(this.at, Math.min(...this.parked()));
    for (const p of this.held)
      if (p.until <= this.at) {
        this.held.delete(p);
        p.wake();
      }
  }
}

/** Resolves once `condition()` holds, looking again every millisecond (the test's timeout bounds it). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

/** What a test saw each time every worker was parked or finished, just before time moved on. */
export interface Pause {
  at: number;
  finished: number;
  wakeTimes: number[];
}

/**
 * Runs `workers` concurrent loops of `step` under `clock`: whenever every unfinished worker is parked in
 * a sleep (so no request is on its way), time jumps to the earliest wake. Returns what each pause held.
 */
export async function runStepped(clock: SteppedClock, workers: number, step: () => Promise<void>, each: number): Promise<Pause[]> {
  let finished = 0;
  let failure: unknown;
  const all = Promise.all(
    Array.from({ length: workers }, async () => {
      try {
        for (let i = 0; i < each; i++) await step();
      } catch (error) {
        failure ??= error;
      } finally {
        finished += 1;
      }
    }),
  );
  const pauses: Pause[] = [];
  for (;;) {
    await until(() => failure !== undefined || finished === workers || clock.parked().length + finished === workers);
    if (failure !== undefined) throw failure;
    if (finished === workers) break;
    pauses.push({ at: clock.now(), finished, wakeTimes: clock.parked() });
    clock.wakeNext();
  }
  await all;
  return pauses;
}
