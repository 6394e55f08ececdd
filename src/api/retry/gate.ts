import type { Now, Sleep } from '../../shared/async.js';

/**
 * One per client: a 429 closes the gate until its Retry-After time, and every request of the client
 * waits here before it is sent (slack web-api pauses its whole queue the same way). Without this, the
 * other concurrent requests would keep hitting the limit and prolong it.
 */
export interface RateLimitGate {
  /** Keep every request back until `untilMs` (a later time wins over an earlier one). */
  pauseUntil(untilMs: number): void;
  /** Resolves once the gate is open; rejects with the signal's reason when aborted. */
  waitOpen(signal?: AbortSignal): Promise<void>;
  /** The time the gate opens, or 0 when open. */
  readonly openAtMs: number;
}

export function createRateLimitGate(deps: { now: Now; sleep: Sleep }): RateLimitGate {
  let openAtMs = 0;
  return {
    get openAtMs() {
      return openAtMs;
    },
    pauseUntil(untilMs) {
      if (untilMs > openAtMs) openAtMs = untilMs;
    },
    async waitOpen(signal) {
      // Loop: another 429 may push the opening time further while this request sleeps.
      for (let wait = openAtMs - deps.now(); wait > 0; wait = openAtMs - deps.now()) await deps.sleep(wait, signal);
    },
  };
}
