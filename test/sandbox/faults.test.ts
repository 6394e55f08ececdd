import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FaultEngine } from '../../src/sandbox/faults.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { ISO, startTestSandbox, type TestSandbox } from './helpers.js';

/** A scripted random source: fault probabilities become deterministic. */
function scripted(values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

let t: TestSandbox;
let rolls: number[] = [0];
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo', random: () => rolls.shift() ?? 0 });
});
afterEach(() => t.sandbox.setFaults([]));
afterAll(() => t.close());

const newUser = (name: string) => ({ name, displayName: name, isGuest: false });

describe('status faults', () => {
  it('answer the status with a body on matching requests, by probability', async () => {
    t.sandbox.setFaults([{ method: 'GET', path: '/users/*', fault: { kind: 'status', status: 503, retryAfter: { seconds: 7 } }, probability: 0.5 }]);
    rolls = [0.2, 0.7];
    const hit = await t.call('/users/1');
    expect(hit.status).toBe(503);
    expect(hit.headers.get('retry-after')).toBe('7');
    expect(hit.headers.get('x-api-version')).toBeTruthy();
    expect(hit.json).toEqual({ error: 'ServiceUnavailable', message: expect.any(String), timestamp: expect.stringMatching(ISO) });
    expect((await t.call('/users/1')).status).toBe(200); // roll 0.7 >= 0.5: passes
    expect((await t.call('/users')).status).toBe(200); // '*' needs one more segment
  });

  it('retire after `times`, and give Retry-After as an HTTP date when asked', async () => {
    t.sandbox.setFaults([{ path: '/channels/**', fault: { kind: 'status', status: 500, retryAfter: { httpDateInSeconds: 30 } }, times: 1 }]);
    const first = await t.call('/channels/1/members');
    expect(first.status).toBe(500);
    expect(first.json.error).toBe('ServerError');
    const when = Date.parse(first.headers.get('retry-after')!);
    expect(when).toBeGreaterThan(Date.now() + 20_000);
    expect((await t.call('/channels/1/members')).status).toBe(200);
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After in seconds once the budget is spent, until the window ends', async () => {
    // The window runs on the sandbox's clock, moved by the test: no real 150 ms to race.
    let clockMs = Date.now();
    const s = await startTestSandbox({ clock: () => clockMs });
    try {
      s.sandbox.setFaults([{ fault: { kind: 'rateLimit', budget: 2, windowMs: 150 } }]);
      expect((await s.call('/application')).status).toBe(200);
      expect((await s.call('/application')).status).toBe(200);
      const limited = await s.call('/application');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(limited.json).toEqual({ error: 'TooManyRequests', message: expect.any(String), timestamp: expect.stringMatching(ISO) });
      clockMs += 149;
      expect((await s.call('/application')).status).toBe(429);
      clockMs += 1;
      expect((await s.call('/application')).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('can give Retry-After as an HTTP date', async () => {
    t.sandbox.setFaults([{ path: '/jobs', fault: { kind: 'rateLimit', budget: 0, windowMs: 60_000, retryAfterAs: 'http-date' } }]);
    const limited = await t.call('/jobs');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/GMT$/);
    expect(Date.parse(limited.headers.get('retry-after')!)).toBeGreaterThan(Date.now());
    expect((await t.call('/users')).status).toBe(200); // other paths are not limited by this rule
  });
});

describe('dropped connections', () => {
  it('before-body: the connection closes without an answer', async () => {
    t.sandbox.setFaults([{ method: 'GET', path: '/application', fault: { kind: 'drop', when: 'before-body' } }]);
    await expect(t.call('/application')).rejects.toThrow();
  });

  it('mid-body on an upload: part of it arrives, nothing is applied', async () => {
    t.sandbox.setFaults([{ method: 'POST', path: '/imports/**', fault: { kind: 'drop', when: 'mid-body' } }]);
    const jobsBefore = (await t.call('/jobs')).json.page.totalElements;
    const big = Array.from({ length: 2000 }, (_, i) => ({ name: `mid${i}`, displayName: 'x'.repeat(100), isGuest: false, properties: {} }));
    await expect(t.upload('/imports/users', big)).rejects.toThrow();
    t.sandbox.setFaults([]);
    expect((await t.call('/jobs')).json.page.totalElements).toBe(jobsBefore);
    expect((await t.call('/users?name=mid0')).json._embedded.users).toEqual([]);
  });

  it('mid-body on a GET: half the promised response arrives, then the connection goes', async () => {
    t.sandbox.setFaults([{ method: 'GET', path: '/users', fault: { kind: 'drop', when: 'mid-body' } }]);
    const response = await fetch(`${t.url}/users`, { headers: { authorization: `Bearer ${t.token}` } });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
  });

  it('after-processing: the change is applied, but no answer comes', async () => {
    t.sandbox.setFaults([{ method: 'POST', path: '/users', fault: { kind: 'drop', when: 'after-processing' }, times: 1 }]);
    await expect(t.call('/users', { method: 'POST', body: newUser('ghostwriter') })).rejects.toThrow();
    expect((await t.call('/users?name=ghostwriter')).json._embedded.users).toHaveLength(1);
  });
});

describe('slow responses', () => {
  it('delay holds a matching answer back while others go ahead', async () => {
    t.sandbox.setFaults([{ path: '/users/1', fault: { kind: 'delay', ms: 300 } }]);
    const order: string[] = [];
    const slow = t.call('/users/1').then((r) => order.push(`slow:${r.status}`));
    const fast = t.call('/users/2').then((r) => order.push(`fast:${r.status}`));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['fast:200', 'slow:200']);
  });
});

describe('redirects', () => {
  it('same origin: a 307 to /_r/<path>, where the request is served (an upload body survives)', async () => {
    t.sandbox.setFaults([{ method: 'POST', path: '/imports/users', fault: { kind: 'redirect', status: 307 } }]);
    const manual = await t.upload('/imports/users', [], { redirect: 'manual' });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe(`${t.url}/_r/imports/users`);
    t.sandbox.clearRequests();
    const followed = await t.upload('/imports/users', [{ name: 'redirected', displayName: 'R', isGuest: false, properties: {} }]);
    expect(followed.status).toBe(202);
    expect(t.sandbox.requests().map((r) => `${r.status} ${r.path}`)).toEqual(['307 /imports/users', '202 /_r/imports/users']);
    expect((await t.waitJob(followed.json.id)).state).toBe('FINISHED');
  });

  it('to another origin, keeping path and query', async () => {
    t.sandbox.setFaults([{ path: '/users', fault: { kind: 'redirect', status: 302, toOrigin: 'http://127.0.0.1:9' } }]);
    const reply = await t.call('/users?name=alice', { redirect: 'manual' });
    expect(reply.status).toBe(302);
    expect(reply.headers.get('location')).toBe('http://127.0.0.1:9/users?name=alice');
  });
});

describe('faults set at start, and job behaviour', () => {
  it('rules given in options apply from the first request', async () => {
    const s = await startTestSandbox({ faults: [{ path: '/application', fault: { kind: 'status', status: 502 } }], random: scripted([0]) });
    try {
      expect((await s.call('/application')).status).toBe(502);
      expect((await s.call('/jobs')).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('failProbability makes import jobs FAIL and apply nothing', async () => {
    const s = await startTestSandbox({ jobs: { failProbability: 1 } });
    try {
      const job = await s.waitJob((await s.upload('/imports/users', [{ name: 'lost', displayName: 'L', isGuest: false, properties: {} }])).json.id);
      expect(job.state).toBe('FAILED');
      expect((await s.call('/users?name=lost')).json._embedded.users).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('minDurationMs keeps a job from ending early; stuck jobs stay RUNNING; concurrentJobs keeps others PENDING', async () => {
    const s = await startTestSandbox({ jobs: { minDurationMs: 120 }, capacity: { concurrentJobs: 1 } });
    try {
      const first = (await s.upload('/imports/users', [])).json;
      const done = await s.waitJob(first.id);
      expect(Date.parse(done.endedTime) - Date.parse(done.createdTime)).toBeGreaterThanOrEqual(120);
      s.sandbox.setJobOptions({ stuck: true });
      const stuck = (await s.upload('/imports/users', [])).json;
      s.sandbox.setJobOptions({});
      const waiting = (await s.upload('/imports/users', [])).json;
      // The stuck job takes the one slot and never gives it back, so the next one stays PENDING.
      while ((await s.call(`/jobs/${stuck.id}`)).json.state !== 'RUNNING') await new Promise((r) => setTimeout(r, 10));
      expect((await s.call(`/jobs/${waiting.id}`)).json.state).toBe('PENDING');
      await new Promise((r) => setTimeout(r, 150));
      expect((await s.call(`/jobs/${stuck.id}`)).json.state).toBe('RUNNING');
      expect((await s.call(`/jobs/${waiting.id}`)).json.state).toBe('PENDING');
      expect((await s.call('/jobs?running=true')).json.page.totalElements).toBe(2);
    } finally {
      await s.close();
    }
  });

  it('itemsPerSecond paces how fast imports are applied', async () => {
    const s = await startTestSandbox({ capacity: { itemsPerSecond: 100 } });
    try {
      const users = Array.from({ length: 20 }, (_, i) => ({ name: `p${i}`, displayName: 'P', isGuest: false, properties: {} }));
      const job = await s.waitJob((await s.upload('/imports/users', users)).json.id);
      expect(job.state).toBe('FINISHED');
      // 20 items at 100 per second take 200 ms; an idle platform credits at most BURST_MS (50 ms) of it.
      expect(Date.parse(job.endedTime) - Date.parse(job.createdTime)).toBeGreaterThanOrEqual(150);
    } finally {
      await s.close();
    }
  });
});

describe('seeded fault rolls', () => {
  it('repeat the same decisions for the same seed (a rehearsal can be replayed), and others for another seed', () => {
    const decisions = (seed: number) => {
      const engine = new FaultEngine([{ fault: { kind: 'status', status: 503 }, probability: 0.3 }], seededRandom(seed));
      return Array.from({ length: 60 }, () => engine.decide('GET', '/application', 'c', false, 0).decision?.kind ?? 'pass');
    };
    expect(decisions(7)).toEqual(decisions(7));
    expect(decisions(7)).not.toEqual(decisions(8));
    expect(decisions(7).filter((d) => d === 'answer').length).toBeGreaterThan(5);
  });
});
