import { describe, expect, it } from 'vitest';
import { createRateLimitGate } from '../../../src/api/retry/gate.js';
import { routeClassOf } from '../../../src/api/retry/pacer.js';
import { Pacing } from '../../../src/api/retry/pacing.js';
import { parseRateLimitHeaders } from '../../../src/api/retry/rate-limit-headers.js';

/** A clock that moves only when something sleeps on it (one worker at a time). */
function virtualClock() {
  let t = 1_000_000;
  return { now: () => t, sleep: async (ms: number) => void (t += Math.max(0, ms)), advance: (ms: number) => void (t += ms) };
}

/** A deterministic PRNG (mulberry32), for network jitter. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The sandbox's `rate:BUDGET/WINDOW` rule: a window starts with the first request after the last one ended;
 * past the budget, 429 with Retry-After in whole seconds, at least 1.
 */
function fixedWindowServer(budget: number, windowMs: number) {
  let window = { start: -Infinity, count: 0 };
  return (arrival: number): { status: number; retryAfterMs?: number } => {
    if (arrival >= window.start + windowMs) window = { start: arrival, count: 0 };
    if (++window.count <= budget) return { status: 200 };
    return { status: 429, retryAfterMs: Math.max(1, Math.ceil((window.start + windowMs - arrival) / 1000)) * 1000 };
  };
}

/** Sends `count` requests one after the other through the pacing, as the transport does; returns the time taken and the 429s. */
async function sendAll(count: number, server: (arrival: number) => { status: number; retryAfterMs?: number; headers?: Record<string, string> }) {
  const clock = virtualClock();
  const pacing = new Pacing(createRateLimitGate(clock), clock);
  const jitter = prng(7);
  const started = clock.now();
  let limited = 0;
  for (let sent = 0; sent < count; ) {
    const ticket = await pacing.waitTurn('POST /imports/messages');
    // 0–10 ms on the way there (loopback under load), 5 ms back.
    clock.advance(Math.floor(jitter() * 10));
    const answer = server(clock.now());
    clock.advance(5);
    pacing.observe(ticket, answer.status, answer.headers ?? {}, answer.retryAfterMs);
    if (answer.status === 429) {
      limited++;
      pacing.gate.pauseUntil(clock.now() + answer.retryAfterMs!);
    } else sent++;
  }
  return { elapsedMs: clock.now() - started, limited, pacing };
}

describe('pacing under a request-rate limit', () => {
  it('learns 1 request per second and keeps ≥ 95% of it with few 429s', async () => {
    const { elapsedMs, limited, pacing } = await sendAll(88, fixedWindowServer(1, 1000));
    // 88 requests at 1/s need 87 s between the first and the last.
    expect(87_000 / elapsedMs).toBeGreaterThanOrEqual(0.95);
    expect(limited).toBeLessThanOrEqual(5);
    expect(pacing.describe()['POST /imports/messages']).toBeGreaterThan(0.9);
  });

  it('learns a budget per minute (100 per 60 s) and keeps to it', async () => {
    const { elapsedMs, limited, pacing } = await sendAll(400, fixedWindowServer(100, 60_000));
    // 400 requests at 100 per minute take 240 s once the first window's burst is spent.
    expect(elapsedMs).toBeLessThanOrEqual(240_000 * 1.02);
    expect(limited).toBeLessThanOrEqual(4);
    expect(pacing.describe()['POST /imports/messages']).toBeGreaterThanOrEqual(100 / 60);
  });

  it('obeys RateLimit headers: with nothing remaining, waits for the reset instead of meeting a 429', async () => {
    const server = fixedWindowServer(2, 1000);
    let windowStart = -Infinity;
    let used = 0;
    const withHeaders = (arrival: number) => {
      if (arrival >= windowStart + 1000) [windowStart, used] = [arrival, 0];
      const answer = server(arrival);
      if (answer.status === 200) used++;
      const resetS = Math.max(1, Math.ceil((windowStart + 1000 - arrival) / 1000));
      return { ...answer, headers: { 'ratelimit-remaining': String(2 - used), 'ratelimit-reset': String(resetS) } };
    };
    const { limited } = await sendAll(20, withHeaders);
    expect(limited).toBe(0);
  });

  it('takes a single 429 for a passing fault: it pauses, but does not pace the route', async () => {
    let answered = 0;
    const { elapsedMs, limited, pacing } = await sendAll(50, () => (++answered === 3 ? { status: 429, retryAfterMs: 2000 } : { status: 200 }));
    expect(limited).toBe(1);
    expect(elapsedMs).toBeLessThan(2000 + 50 * 40);
    expect(pacing.describe()).toEqual({});
  });

  it('does not pace a route that never met a 429', async () => {
    const { elapsedMs, limited, pacing } = await sendAll(50, () => ({ status: 200 }));
    expect(limited).toBe(0);
    expect(elapsedMs).toBeLessThan(50 * 40);
    expect(pacing.describe()).toEqual({});
  });
});

describe('route classes', () => {
  it('replace ids and keep other origins apart', () => {
    const api = 'http://api.test';
    expect(routeClassOf('GET', new URL('http://api.test/jobs/42'), api)).toBe('GET /jobs/{id}');
    expect(routeClassOf('POST', new URL('http://api.test/imports/channels/7/members'), api)).toBe('POST /imports/channels/{id}/members');
    expect(routeClassOf('POST', new URL('http://auth.test/oauth/token'), api)).toBe('POST http://auth.test/oauth/token');
  });
});

describe('rate-limit headers', () => {
  const now = 1_700_000_000_000;
  it('reads the IETF draft forms and the X- form (delay or Unix time)', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"default";r=0;t=7' }, now)).toEqual({ remaining: 0, resetMs: 7000 });
    expect(parseRateLimitHeaders({ ratelimit: 'limit=10, remaining=3, reset=5' }, now)).toEqual({ remaining: 3, resetMs: 5000 });
    expect(parseRateLimitHeaders({ 'ratelimit-remaining': '0', 'ratelimit-reset': '2' }, now)).toEqual({ remaining: 0, resetMs: 2000 });
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 30) }, now)).toEqual({ remaining: 0, resetMs: 30_000 });
  });

  it('ignores what it cannot read', () => {
    expect(parseRateLimitHeaders({}, now)).toBeUndefined();
    expect(parseRateLimitHeaders({ 'ratelimit-remaining': 'soon', 'ratelimit-reset': '2' }, now)).toBeUndefined();
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '5' }, now)).toBeUndefined();
  });
});
