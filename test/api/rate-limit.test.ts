import type { Int64 } from '../../src/shared/int64.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isRateLimitedError } from '../../src/api/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import type { RecordedRequest } from '../../src/sandbox/options.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;
let jobId: Int64;

beforeEach(async () => {
  bed = await startApiTestBed();
  jobId = (await bed.client.exports.start('users')).id;
  await bed.client.auth.check();
  bed.sandbox.clearRequests();
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

/** `workers` loops of `each` sequential calls, all through the same client: concurrent traffic. */
async function traffic(workers: number, each: number): Promise<void> {
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = 0; i < each; i++) await bed.client.jobs.get(jobId);
    }),
  );
}

const apiRequests = () => bed.sandbox.requests().filter((r) => r.path.startsWith('/jobs/'));

/**
 * Requests that arrived after the client had time to see the 429 (`inFlightMs`: those already on
 * the wire when it came back cannot be recalled) and before `openAt`: there must be none.
 */
function sentTooEarly(requests: RecordedRequest[], limited: RecordedRequest, openAt: number, inFlightMs = 150): RecordedRequest[] {
  return requests.filter((r) => r.receivedAt > limited.receivedAt + inFlightMs && r.receivedAt < openAt);
}

describe('429 with Retry-After', () => {
  it('in seconds: pauses every request of the client until the time has passed', async () => {
    bed.sandbox.setFaults([{ method: 'GET', path: '/jobs/*', fault: { kind: 'status', status: 429, retryAfter: { seconds: 1 } }, times: 1 }]);
    await traffic(3, 4);
    const requests = apiRequests();
    const limited = requests.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(requests.filter((r) => r.status === 200)).toHaveLength(12);
    expect(sentTooEarly(requests, limited[0]!, limited[0]!.receivedAt + 1000)).toEqual([]);
    // The pause was kept: requests went on only after it.
    expect(requests.some((r) => r.receivedAt >= limited[0]!.receivedAt + 1000)).toBe(true);
  });

  it('as an HTTP date: waits until that date', async () => {
    bed.sandbox.setFaults([{ method: 'GET', path: '/jobs/*', fault: { kind: 'status', status: 429, retryAfter: { httpDateInSeconds: 2 } }, times: 1 }]);
    await traffic(3, 4);
    const requests = apiRequests();
    const [limited] = requests.filter((r) => r.status === 429);
    // The date has whole seconds, made from the sandbox's clock at or after the request arrived.
    const dateAtLeast = Math.floor((limited!.receivedAt + 2000) / 1000) * 1000;
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
      // it, only requests already on the wire when a 429 came back can meet it.
      for (const hit of limited) {
        const lowerBound =
          retryAfterAs === 'seconds' ? hit.receivedAt + 1000 : Math.floor((hit.receivedAt + 1000) / 1000) * 1000;
        expect(sentTooEarly(requests, hit, lowerBound)).toEqual([]);
      }
    });
  }
});
