import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTimeoutError } from '../../src/api/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;

/** Waits for a condition the test observes, with no deadline but the test's own. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

beforeEach(async () => {
  bed = await startApiTestBed();
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

describe('timeouts and cancellation', () => {
  it('a response that is too slow is a timeout, retried, then successful', async () => {
    const client = bed.newClient({ connection: { headersTimeoutMs: 300 } });
    await client.auth.check();
    // Far longer than the timeout, so a loaded machine cannot let the answer win the race.
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'delay', ms: 10_000 }, times: 1 }]);
    expect((await client.application.get()).id).toBeTypeOf('number');
    expect(bed.sandbox.requests().filter((r) => r.path === '/application')).toHaveLength(2);
    expect(bed.logs.lines.some((l) => l.includes('"code":"API_TIMEOUT"'))).toBe(true);
  });

  it('a timeout that lasts is API_TIMEOUT (exit 75)', async () => {
    const client = bed.newClient({ connection: { headersTimeoutMs: 200 }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'delay', ms: 10_000 } }]);
    await client.auth.check();
    const error = await client.application.get().catch((e: unknown) => e);
    expect(isTimeoutError(error) && error.phase).toBe('headers');
    expect(exitCodeFor(error)).toBe(ExitCode.TEMPORARY);
  });

  it('an aborted call rejects with the signal reason and is not repeated', async () => {
    await bed.client.auth.check();
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'delay', ms: 10_000 } }]);
    bed.sandbox.clearRequests();
    const controller = new AbortController();
    const reason = new Error('stopped by the caller');
    const call = bed.client.application.get({ signal: controller.signal });
    // Abort once the request is at the server (and its answer 10 s away), not after a guessed delay.
    await until(() => bed.sandbox.requests().length === 1);
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(bed.sandbox.requests()).toHaveLength(1);
  });

  // SIGTERM while the token request hangs: the run ended at once, but closing the client waited for the
  // shared token fetch (the headers timeout, 60 s, then its retries), past a pod's grace period.
  it('closing the client ends a token request that an aborted call left behind, at once', async () => {
    bed.sandbox.setFaults([{ method: 'POST', path: '/oauth/token', fault: { kind: 'delay', ms: 60_000 } }]);
    const client = bed.newClient();
    const controller = new AbortController();
    const reason = new Error('stopped by the caller');
    const call = client.application.get({ signal: controller.signal });
    await until(() => bed.sandbox.requests().some((r) => r.path === '/oauth/token'));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await client.close();
    expect(bed.sandbox.requests().filter((r) => r.path === '/oauth/token')).toHaveLength(1);
    expect(bed.logs.lines.filter((l) => l.includes('request failed: retrying'))).toEqual([]);
  }, 20_000);

  it('an abort also ends the wait behind a rate-limit pause', async () => {
    await bed.client.auth.check();
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'status', status: 429, retryAfter: { seconds: 10 } }, times: 1 }]);
    const controller = new AbortController();
    const reason = new Error('interrupted');
    bed.sandbox.clearRequests();
    const call = bed.client.application.get({ signal: controller.signal });
    // Abort once the 429 was answered: the call is then waiting behind the 10-second pause.
    await until(() => bed.sandbox.requests().some((r) => r.status === 429));
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(bed.sandbox.requests()).toHaveLength(1);
  });
});
