import type { Int64 } from '../../src/shared/int64.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Sleep } from '../../src/shared/async.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

/**
 * A clock that moves only when the test says so: every sleep waits for `advanceTo`. The client takes
 * it for both `now` and `sleep`, so what it sends inside a Retry-After window shows without racing
 * the wall clock: the test waits until every worker is asleep or done, then counts what the sandbox
 * received.
 */
function manualClock(start: number) {
  let t = start;
  const timers: Array<{ at: number; resolve: () => void }> = [];
  const sleep: Sleep = (ms) => (ms <= 0 ? Promise.resolve() : new Promise<void>((resolve) => timers.push({ at: t + ms, resolve })));
  return {
    now: () => t,
    sleep,
    sleeping: () => timers.length,
    advanceTo(at: number) {
      t = at;
      for (const timer of timers.filter((x) => x.at <= t)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.resolve();
      }
    },
  };
}

let bed: ApiTestBed;
let clock: ReturnType<typeof manualClock>;
let jobIds: Int64[];

beforeEach(async () => {
  clock = manualClock(Date.now());
  bed = await startApiTestBed({}, {}, { now: clock.now, sleep: clock.sleep });
  jobIds = [(await bed.client.exports.start('users')).id, (await bed.client.exports.start('messages')).id];
  await bed.client.auth.check();
  bed.sandbox.clearRequests();
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

const jobRequests = () => bed.sandbox.requests().filter((r) => r.path.startsWith('/jobs/'));

/** Workers calling `get job` in a loop; `settled()` is true once each is asleep on the clock or done. */
function workers(loops: Array<{ jobId: Int64; calls: number }>) {
  let done = 0;
  const all = Promise.all(
    loops.map(async ({ jobId, calls }) => {
      try {
        for (let i = 0; i < calls; i++) await bed.client.jobs.get(jobId);
      } finally {
        done++;
      }
    }),
  );
  return { all, settled: () => clock.sleeping() + done === loops.length };
}

const SETTLE = { timeout: 20_000, interval: 10 };

describe('Retry-After on a 503 (one rule with 429)', () => {
  it('pauses every request of the client until the time given', async () => {
    const opened = clock.now() + 30_000;
    bed.sandbox.setFaults([{ method: 'GET', path: '/jobs/*', fault: { kind: 'status', status: 503, retryAfter: { seconds: 30 } }, times: 1 }]);
    const run = workers([0, 1, 2].map(() => ({ jobId: jobIds[0]!, calls: 4 })));
    await vi.waitFor(() => expect(run.settled()).toBe(true), SETTLE);
    // Before the window ends: the 503 and at most the other two workers' requests already on the wire.
    const inWindow = jobRequests();
    expect(inWindow.filter((r) => r.status === 503)).toHaveLength(1);
    expect(inWindow.length).toBeLessThanOrEqual(3);
    clock.advanceTo(opened - 1);
    await vi.waitFor(() => expect(run.settled()).toBe(true), SETTLE);
    expect(jobRequests()).toHaveLength(inWindow.length);
    clock.advanceTo(opened);
    await run.all;
    expect(jobRequests().filter((r) => r.status === 200)).toHaveLength(12);
  });

  it('holds back the retry of a request that failed while the window was open', async () => {
    const opened = clock.now() + 30_000;
    const [first, second] = jobIds as [number, number];
    bed.sandbox.setFaults([
      { method: 'GET', path: `/jobs/${first}`, fault: { kind: 'status', status: 503, retryAfter: { seconds: 30 } }, times: 1 },
      // On the wire while the 503 comes back, then a plain 500: its retry (a few ms of backoff) must wait for the window too.
      { method: 'GET', path: `/jobs/${second}`, fault: { kind: 'delay', ms: 200 }, times: 1 },
      { method: 'GET', path: `/jobs/${second}`, fault: { kind: 'status', status: 500 }, times: 1 },
    ]);
    const run = workers([{ jobId: first, calls: 1 }, { jobId: second, calls: 1 }]);
    await vi.waitFor(() => expect(run.settled()).toBe(true), SETTLE);
    expect(jobRequests().map((r) => r.status).sort()).toEqual([500, 503]);
    // Past any backoff the rapid policy draws, still inside the window.
    clock.advanceTo(clock.now() + 1000);
    await vi.waitFor(() => expect(run.settled()).toBe(true), SETTLE);
    expect(jobRequests()).toHaveLength(2);
    clock.advanceTo(opened);
    await run.all;
    expect(jobRequests().map((r) => r.status)).toEqual([expect.any(Number), expect.any(Number), 200, 200]);
  });
});
