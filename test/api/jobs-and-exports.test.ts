import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Readable } from 'node:stream';
import { isJobDeadlineError, isNetworkError, type Job } from '../../src/api/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { realSleep } from '../../src/shared/async.js';
import { startOtherOrigin, type OtherOrigin } from '../helpers/other-origin.js';
import { collect, startApiTestBed, writeUsersFile, type ApiTestBed } from './support.js';

let bed: ApiTestBed;
let storage: OtherOrigin | undefined;

beforeEach(async () => {
  bed = await startApiTestBed({ jobs: { minDurationMs: 30 } });
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
  await storage?.close();
  storage = undefined;
});

async function readAll(stream: Readable): Promise<{ bytes: Buffer; error?: unknown }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
    return { bytes: Buffer.concat(chunks) };
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error };
  }
}

async function finishedUsersExport(): Promise<Job> {
  const file = writeUsersFile(300, 'exported');
  await bed.client.jobs.wait((await bed.client.imports.upload('users', { path: file.path })).id, { initialIntervalMs: 10 });
  const job = await bed.client.jobs.wait((await bed.client.exports.start('users')).id, { initialIntervalMs: 10 });
  expect(job).toMatchObject({ state: 'FINISHED', type: 'USER_ANALYTICS_EXPORT' });
  return job;
}

describe('jobs', () => {
  it('waits with a growing interval until a final state', async () => {
    // Long enough that five polls fit before the job ends, however slow each round trip on a busy machine.
    bed.sandbox.setJobOptions({ minDurationMs: 1500 });
    const pauses: number[] = [];
    const client = bed.newClient({}, { sleep: (ms, signal) => (pauses.push(ms), realSleep(ms, signal)) });
    const file = writeUsersFile(5, 'waited');
    const created = await client.imports.upload('users', { path: file.path });
    const states: string[] = [];
    const job = await client.jobs.wait(created.id, { initialIntervalMs: 10, backoffFactor: 2, maxIntervalMs: 80, onPoll: (j) => states.push(j.state) });
    expect(job.state).toBe('FINISHED');
    expect(states.at(-1)).toBe('FINISHED');
    expect(states.slice(0, -1).every((s) => s === 'PENDING' || s === 'RUNNING')).toBe(true);
    expect(pauses.slice(0, 4)).toEqual([10, 20, 40, 80]);
    expect(pauses.every((p) => p <= 80)).toBe(true);
  });

  it('a job that never finishes ends in JOB_DEADLINE_EXCEEDED naming the job', async () => {
    bed.sandbox.setJobOptions({ stuck: true });
    const file = writeUsersFile(2, 'stuck');
    const created = await bed.client.imports.upload('users', { path: file.path });
    const error = await bed.client.jobs.wait(created.id, { initialIntervalMs: 10, timeoutMs: 200 }).catch((e: unknown) => e);
    expect(isJobDeadlineError(error)).toBe(true);
    expect((error as Error).message).toContain(`job ${created.id}`);
    expect((error as Error).message).toContain('USER_IMPORT');
    expect(exitCodeFor(error)).toBe(ExitCode.TEMPORARY);
    const running = await collect(bed.client.jobs.list({ running: true }));
    expect(running.map((j) => j.id)).toContain(created.id);
  });
});

describe('export download', () => {
  it('downloads from another origin without the bearer token, and resumes with Range', async () => {
    const job = await finishedUsersExport();
    const whole = await readAll((await bed.client.exports.download(job)).stream);
    expect(whole.bytes.toString('utf8').split('\n')[0]).toMatch(/^id,name,displayName/);

    // The platform may hand out a pre-signed URL on a storage origin.
    storage = await startOtherOrigin({ forwardTo: bed.sandbox.url });
    const elsewhere = { ...job, file: `${storage.url}${new URL(job.file!).pathname}` };
    const offset = 1234;
    const resumed = await bed.client.exports.download(elsewhere, { offsetBytes: offset });
    expect(resumed.totalBytes).toBe(whole.bytes.length);
    expect((await readAll(resumed.stream)).bytes.equals(whole.bytes.subarray(offset))).toBe(true);
    expect(storage.received).toHaveLength(1);
    expect(storage.received[0]!.headers.authorization).toBeUndefined();
    expect(storage.received[0]!.headers.range).toBe(`bytes=${offset}-`);
  });

  it('a redirect to storage drops the token; a cut download resumes where it stopped', async () => {
    const job = await finishedUsersExport();
    storage = await startOtherOrigin({ forwardTo: bed.sandbox.url });
    bed.sandbox.setFaults([
      { method: 'GET', path: '/_exports/**', fault: { kind: 'redirect', status: 302, toOrigin: storage.url }, times: 1 },
      { method: 'GET', path: '/_exports/**', fault: { kind: 'drop', when: 'mid-body' }, times: 1 },
    ]);
    bed.sandbox.clearRequests();
    const first = await readAll((await bed.client.exports.download(job)).stream);
    expect(isNetworkError(first.error)).toBe(true);
    expect(first.bytes.length).toBeGreaterThan(0);
    const rest = await readAll((await bed.client.exports.download(job, { offsetBytes: first.bytes.length })).stream);
    expect(rest.error).toBeUndefined();
    const text = Buffer.concat([first.bytes, rest.bytes]).toString('utf8');
    expect(text.trim().split('\n')).toHaveLength(301);
    expect(storage.received[0]!.headers.authorization).toBeUndefined();
    const fromStorage = bed.sandbox.requests().filter((r) => r.path.startsWith('/_exports/'));
    expect(fromStorage.map((r) => r.headers.authorization)).toEqual(['present', undefined, 'present']);
  });
});
