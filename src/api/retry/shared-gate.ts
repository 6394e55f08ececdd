import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Now, Sleep } from '../../shared/async.js';
import type { RateLimitGate } from './gate.js';

/**
 * A rate-limit gate shared by the processes of one sharded run (docs/sharding.md): a 429's Retry-After
 * time is written to a small file on the volume they share, and every request of every process checks it
 * before it goes. So a window one shard was told about holds the other shards back too, instead of each
 * learning it with a 429 of its own. The file holds the opening time in epoch milliseconds; it is replaced
 * atomically (write, then rename), and a later time always wins. A file that cannot be read counts as an
 * open gate: the shards then fall back to learning the limit each for itself.
 */
export function createSharedRateLimitGate(file: string, deps: { now: Now; sleep: Sleep }): RateLimitGate {
  let ownOpenAtMs = 0;
  let tmpSeq = 0;
  const readShared = (): number => {
    try {
      const value = Number(readFileSync(file, 'utf8'));
      return Number.isFinite(value) ? value : 0;
    } catch {
      return 0;
    }
  };
  const gate: RateLimitGate = {
    get openAtMs() {
      const at = Math.max(ownOpenAtMs, readShared());
      return at > deps.now() ? at : 0;
    },
    pauseUntil(untilMs) {
      if (untilMs > ownOpenAtMs) ownOpenAtMs = untilMs;
      if (untilMs <= readShared()) return;
      try {
        const tmp = `${file}.${process.pid}.${tmpSeq++}.tmp`;
        writeFileSync(tmp, String(untilMs));
        renameSync(tmp, file);
      } catch {
        // Not shared this time; this process still waits.
      }
    },
    async waitOpen(signal) {
      for (let wait = gate.openAtMs - deps.now(); wait > 0; wait = gate.openAtMs - deps.now()) await deps.sleep(wait, signal);
    },
  };
  return gate;
}
