import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTimeoutError } from '../../src/api/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;

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
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'delay', ms: 1500 }, times: 1 }]);
    expect((await client.application.get()).id).toBeTypeOf('number');
    expect(bed.sandbox.requests().filter((r) => r.path === '/application')).toHaveLength(2);
    expect(bed.logs.lines.some((l) => l.includes('"code":"API_TIMEOUT"'))).toBe(true);
  });

  it('a timeout that lasts is API_TIMEOUT (exit 75)', async () => {
    const client = bed.newClient({ connection: { headersTimeoutMs: 200 }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } });
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'delay', ms: 1000 } }]);
    await client.auth.check();
    const error = await client.application.get().catch((e: unknown) => e);
    expect(isTimeoutError(error) && error.phase).toBe('headers');
    expect(exitCodeFor(error)).toBe(ExitCode.TEMPORARY);
  });

  it('an aborted call rejects with the signal reason and is not repeated', async () => {
    await bed.client.auth.check();
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'delay', ms: 1000 } }]);
    bed.sandbox.clearRequests();
    const controller = new AbortController();
    const reason = new Error('stopped by the caller');
    setTimeout(() => controller.abort(reason), 100);
    await expect(bed.client.application.get({ signal: controller.signal })).rejects.toBe(reason);
    expect(bed.sandbox.requests()).toHaveLength(1);
  });

  it('an abort also ends the wait behind a rate-limit pause', async () => {
    await bed.client.auth.check();
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'status', status: 429, retryAfter: { seconds: 10 } }, times: 1 }]);
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const call = bed.client.application.get({ signal: controller.signal });
    setTimeout(() => controller.abort(reason), 200);
    await expect(call).rejects.toBe(reason);
  });
});
