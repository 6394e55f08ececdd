import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient, isNetworkError, isServerError } from '../../src/api/index.js';
import { all } from '../import/support.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { runStepped, SteppedClock } from '../helpers/stepped-clock.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;

beforeEach(async () => {
  bed = await startApiTestBed();
  await bed.client.auth.check();
  bed.sandbox.clearRequests();
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

describe('server errors', () => {
  it('retries 503 and 500, then succeeds', async () => {
    bed.sandbox.setFaults([
      { path: '/application', fault: { kind: 'status', status: 503 }, times: 1 },
      { path: '/application', fault: { kind: 'status', status: 500 }, times: 1 },
    ]);
    expect((await bed.client.application.get()).id).toBeTypeOf('number');
    expect(bed.sandbox.requests().map((r) => r.status)).toEqual([503, 500, 200]);
    expect(bed.logs.lines.filter((l) => l.includes('request failed: retrying'))).toHaveLength(2);
  });

  it('stops after the policy attempts with API_SERVER (exit 69), naming the call', async () => {
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'status', status: 502 } }]);
    const error = await bed.client.application.get().catch((e: unknown) => e);
    expect(isServerError(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.UNAVAILABLE);
    expect((error as Error).message).toContain('get the application (GET /application)');
    expect((error as { details: { attempts: number } }).details.attempts).toBe(5);
    expect((error as Error).message).toContain('gave up after 5 attempts');
    expect(bed.sandbox.requests()).toHaveLength(5);
  });

  it('repeats an export start that met a 503, a 500 and a reset after the job was made; uses the job whose answer arrived', async () => {
    bed.sandbox.setFaults([
      { method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 503 }, times: 1 },
      { method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 500 }, times: 1 },
      { method: 'POST', path: '/analytics/**', fault: { kind: 'drop', when: 'after-processing' }, times: 1 },
    ]);
    const retries: Array<{ attempt: number; code: string }> = [];
    const job = await bed.client.exports.start('messages', { onRetry: ({ attempt, error }) => retries.push({ attempt, code: error.code }) });
    expect(retries).toEqual([
      { attempt: 1, code: 'API_SERVER' },
      { attempt: 2, code: 'API_SERVER' },
      { attempt: 3, code: 'API_NETWORK' },
    ]);
    const starts = bed.sandbox.requests().filter((r) => r.path === '/analytics/messages');
    expect(starts.map((r) => r.status)).toEqual([503, 500, undefined, 202]);
    // The reset came after the platform made a job: two export jobs exist, the answered one is used.
    const exportJobs = await all(bed.client.jobs.list());
    expect(exportJobs.filter((j) => j.type === 'MESSAGE_ANALYTICS_EXPORT').map((j) => j.id)).toHaveLength(2);
    expect((await bed.client.jobs.wait(job.id, { initialIntervalMs: 5 })).state).toBe('FINISHED');
  });

  it('gives up on an export start after the policy attempts, saying how many were made (exit 69)', async () => {
    bed.sandbox.setFaults([{ method: 'POST', path: '/analytics/**', fault: { kind: 'status', status: 503 } }]);
    const error = await bed.client.exports.start('messages').catch((e: unknown) => e);
    expect(isServerError(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.UNAVAILABLE);
    expect((error as Error).message).toMatch(/gave up after 5 attempts in \d+\.\d s\)$/);
    expect((error as { details: { attempts: number } }).details.attempts).toBe(5);
    expect(bed.sandbox.requests().filter((r) => r.path === '/analytics/messages')).toHaveLength(5);
  });

  it('repeats an export POST whose connection was never made', async () => {
    const port = new URL(bed.sandbox.url).port;
    await bed.sandbox.close();
    let sleeps = 0;
    const client = createClient(
      { apiUrl: `http://127.0.0.1:${port}`, auth: { kind: 'static', accessToken: 'static-token-value' }, retry: 'rapid' },
      { logger: bed.logs.logger, sleep: async () => void sleeps++ },
    );
    const error = await client.exports.start('users').catch((e: unknown) => e);
    await client.close();
    expect(isNetworkError(error) && !error.reachedServer).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.UNAVAILABLE);
    expect(sleeps).toBe(4);
    bed.logs.expectNoSecrets(['static-token-value']);
  });

  it('retries a GET whose response was cut mid-body', async () => {
    bed.sandbox.setFaults([{ method: 'GET', path: '/application', fault: { kind: 'drop', when: 'mid-body' }, times: 1 }]);
    expect((await bed.client.application.get()).id).toBeTypeOf('number');
    expect(bed.sandbox.requests().filter((r) => r.path === '/application')).toHaveLength(2);
  });
});

describe('server errors, on a stepped clock shared by sandbox and client', () => {
  it('honours Retry-After on a 503', async () => {
    // Time moves only through the client's sleeps: the gap below is the wait the client chose.
    const clock = new SteppedClock(Date.UTC(2026, 0, 5, 9, 0, 0, 400));
    bed.logs.expectNoSecrets(bed.secrets());
    await bed.close();
    bed = await startApiTestBed({ clock: clock.now }, {}, { now: clock.now, sleep: clock.sleep });
    await bed.client.auth.check();
    bed.sandbox.clearRequests();
    bed.sandbox.setFaults([{ path: '/application', fault: { kind: 'status', status: 503, retryAfter: { seconds: 1 } }, times: 1 }]);
    await runStepped(clock, 1, async () => void (await bed.client.application.get()), 1);
    const [first, second] = bed.sandbox.requests();
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1000);
  });
});
