import type { Int64 } from '../../src/shared/int64.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRateLimitedError } from '../../src/api/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import type { RecordedRequest } from '../../src/sandbox/options.js';
import { runStepped, SteppedClock } from '../helpers/stepped-clock.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;
let clock: SteppedClock;
let jobId: Int64;

beforeEach(async () => {
  // Not on a whole second: an HTTP-date Retry-After is rounded up to one.
  clock = new SteppedClock(Date.UTC(2026, 0, 5, 9, 0, 0, 400));
  bed = await startApiTestBed({ clock: clock.now }, {}, { now: clock.now, sleep: clock.sleep });
  jobId = (await bed.client.exports.start('users')).id;
  await bed.client.auth.check();
  bed.sandbox.clearRequests();
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

/**
 * `workers` loops of `each` sequential calls, all through the same client: concurrent traffic, on the
 * stepped clock (time moves only when every worker is parked in a sleep).
 */
const traffic = (workers: number, each: number) => runStepped(clock, workers, async () => void (await bed.client.jobs.get(jobId)), each);

const apiRequests = () => bed.sandbox.requests().filter((r) => r.path.startsWith('/jobs/'));

/**
 * Requests that arrived after the 429 and before `openAt`: there must be none. Time stands still
 * while any request is on its way (the stepped clock), so those already on the wire when the 429
 * came back arrive at the 429's own time; a later time means the client sent it after seeing the 429.
 */
function sentTooEarly(requests: RecordedRequest[], limited: RecordedRequest, openAt: number): RecordedRequest[] {
  return requests.filter((r) => r.receivedAt > limited.receivedAt && r.receivedAt < openAt);
}

/**
 * When the 429's Retry-After lets the client send again. The sandbox's clock stands still between the
 * request's arrival and the answer, so a count of seconds runs from `receivedAt`.
 */
function toldOpenAt(limited: RecordedRequest): number {
  const told = limited.retryAfter!;
  return /^\d+$/.test(told) ? limited.receivedAt + Number(told) * 1000 : Date.parse(told);
}

describe('429 with Retry-After', () => {
  it('in seconds: pauses every request of the client until the time has passed', async () => {
    bed.sandbox.setFaults([{ method: 'GET', path: '/jobs/*', fault: { kind: 'status', status: 429, retryAfter: { seconds: 1 } }, times: 1 }]);
    const [firstPause] = await traffic(3, 4);
    const requests = apiRequests();
    const limited = requests.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(requests.filter((r) => r.status === 200)).toHaveLength(12);
    // Every worker stopped, none had finished: a pause of only the call that met the 429 lets the others run on.
    expect(firstPause).toMatchObject({ finished: 0, wakeTimes: [expect.any(Number), expect.any(Number), expect.any(Number)] });
    for (const wake of firstPause!.wakeTimes) expect(wake).toBeGreaterThanOrEqual(limited[0]!.receivedAt + 1000);
    expect(sentTooEarly(requests, limited[0]!, limited[0]!.receivedAt + 1000)).toEqual([]);
    // The pause was kept: requests went on only after it.
    expect(requests.some((r) => r.receivedAt >= limited[0]!.receivedAt + 1000)).toBe(true);
  });

  it('as an HTTP date: waits until that date', async () => {
    bed.sandbox.setFaults([{ method: 'GET', path: '/jobs/*', fault: { kind: 'status', status: 429, retryAfter: { httpDateInSeconds: 2 } }, times: 1 }]);
    const [firstPause] = await traffic(3, 4);
    const requests = apiRequests();
    const [limited] = requests.filter((r) => r.status === 429);
    // The date has whole seconds, made from the sandbox's clock at or after the request arrived.
    const dateAtLeast = Math.max(Math.floor((limited!.receivedAt + 2000) / 1000) * 1000, toldOpenAt(limited!));
    expect(firstPause).toMatchObject({ finished: 0, wakeTimes: [expect.any(Number), expect.any(Number), expect.any(Number)] });
    for (const wake of firstPause!.wakeTimes) expect(wake).toBeGreaterThanOrEqual(dateAtLeast);
    expect(sentTooEarly(requests, limited!, dateAtLeast)).toEqual([]);
    expect(requests.filter((r) => r.status === 200)).toHaveLength(12);
  });

  it('gives up with API_RATE_LIMITED (exit 75) when Retry-After exceeds the total time budget', async () => {
    const patient = bed.newClient({ retry: { maxTotalMs: 2000, baseDelayMs: 1, maxDelayMs: 5 } });
    bed.sandbox.setFaults([{ path: '/jobs/*', fault: { kind: 'status', status: 429, retryAfter: { seconds: 30 } } }]);
    const error = await patient.jobs.get(jobId).catch((e: unknown) => e);
    expect(isRateLimitedError(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.TEMPORARY);
    expect((error as { retryAfterMs: number }).retryAfterMs).toBe(30_000);
    expect(apiRequests()).toHaveLength(1);
  });
});

describe('a 429 storm from a per-client budget', () => {
  for (const retryAfterAs of ['seconds', 'http-date'] as const) {
    it(`(${retryAfterAs}) every call succeeds, and after a 429 the client waits as told`, async () => {
      bed.sandbox.setFaults([{ path: '/jobs/**', fault: { kind: 'rateLimit', budget: 4, windowMs: 1000, retryAfterAs } }]);
      await traffic(3, 4);
      const requests = apiRequests();
      expect(requests.filter((r) => r.status === 200)).toHaveLength(12);
      const limited = requests.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      // Without the shared pause the other workers would go on sending into the closed window; with
      // it, only requests already on the wire when a 429 came back can meet it (they arrive at its time).
      for (const hit of limited) {
        const lowerBound =
          retryAfterAs === 'seconds' ? hit.receivedAt + 1000 : Math.floor((hit.receivedAt + 1000) / 1000) * 1000;
        expect(sentTooEarly(requests, hit, Math.max(lowerBound, toldOpenAt(hit)))).toEqual([]);
      }
    });
  }
});
