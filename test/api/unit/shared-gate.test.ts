import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRateLimitGate, type RateLimitGate } from '../../../src/api/retry/gate.js';
import { Pacing } from '../../../src/api/retry/pacing.js';
import { createSharedRateLimitGate } from '../../../src/api/retry/shared-gate.js';

interface Clock {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Three shards of a run against one platform limit (the sandbox's fixed window: BUDGET requests per
 * window, then 429 with the rest of the window as Retry-After), on one virtual clock, taking turns. A
 * shard that gets a 429 pauses its gate until the Retry-After time, as the transport does.
 */
async function simulate(gateOf: (clock: Clock) => RateLimitGate, shares: number) {
  let t = 1_000_000;
  const clock: Clock = { now: () => t, sleep: async (ms: number) => void (t += Math.max(0, ms)) };
  const budget = 5;
  const windowMs = 1000;
  let window = { start: -Infinity, count: 0 };
  const shards = [0, 1, 2].map(() => new Pacing(gateOf(clock), clock, shares));
  /** Retry-After windows told so far: [told at, ends at]. */
  const told: Array<[number, number]> = [];
  let insideAWindow = 0;
  let limited = 0;
  let passed = 0;
  for (let turn = 0; passed < 150; turn++) {
    const pacing = shards[turn % 3]!;
    const ticket = await pacing.waitTurn('POST /imports/messages');
    const arrival = (t += 3);
    if (told.some(([at, end]) => at < arrival && arrival < end)) insideAWindow++;
    if (arrival >= window.start + windowMs) window = { start: arrival, count: 0 };
    const ok = ++window.count <= budget;
    t += 5;
    const retryAfterMs = Math.max(1, Math.ceil((window.start + windowMs - arrival) / 1000)) * 1000;
    pacing.observe(ticket, ok ? 200 : 429, {}, ok ? undefined : retryAfterMs);
    if (ok) passed++;
    else {
      limited++;
      told.push([t, t + retryAfterMs]);
      pacing.gate.pauseUntil(t + retryAfterMs);
    }
  }
  return { insideAWindow, limited, elapsedMs: t - 1_000_000 };
}

describe('a rate limit shared by the shards of a run', () => {
  it('holds every shard back for a Retry-After another shard was told (through the shared file)', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'chatport-gate-')), 'rate-gate.json');
    const shared = await simulate((clock) => createSharedRateLimitGate(file, clock), 3);
    expect(shared.insideAWindow).toBe(0);
    // Each shard on its own gate sends into windows the others were already told about.
    const apart = await simulate((clock) => createRateLimitGate(clock), 1);
    expect(apart.insideAWindow).toBeGreaterThan(0);
    expect(shared.limited).toBeLessThan(apart.limited);
    expect(shared.elapsedMs).toBeLessThanOrEqual(apart.elapsedMs);
  });
});
