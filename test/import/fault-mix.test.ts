/**
 * A migration through the whole fault mix at once: a 429 storm whose Retry-After is an HTTP date, 20% 503
 * (Retry-After in seconds), 5% 500, 10% connection resets (half after the platform applied the request),
 * 20% redirects, 2-second tokens and 5% FAILED jobs. It must end with exactly the source data on the
 * platform, and the client must not send one request inside a Retry-After window the sandbox announced.
 * Fault rolls and jitter come from seeded sources, so a failure replays with the same draws.
 */
import { compareInt64 } from '../../src/shared/int64.js';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient, type ChatportClient } from '../../src/api/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { FaultRule, RecordedRequest } from '../../src/sandbox/options.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { all, generateCsvs, generatedPipeline, startImportFixture, writePipeline, type ImportFixture, writeCsvs } from './support.js';

const SEED = 17;
const FAULT_MIX: FaultRule[] = [
  // A storm of 429s with an HTTP-date Retry-After, whatever the request rate; and a real request-rate limit.
  { fault: { kind: 'status', status: 429, retryAfter: { httpDateInSeconds: 1 } }, probability: 0.2, times: 4 },
  { fault: { kind: 'rateLimit', budget: 12, windowMs: 1000, retryAfterAs: 'http-date' } },
  { fault: { kind: 'status', status: 503, retryAfter: { seconds: 1 } }, probability: 0.2 },
  { fault: { kind: 'status', status: 500 }, probability: 0.05 },
  { fault: { kind: 'drop', when: 'before-body' }, probability: 0.05 },
  { fault: { kind: 'drop', when: 'after-processing' }, probability: 0.05 },
  { fault: { kind: 'redirect', status: 307 }, probability: 0.2 },
];
/**
 * A request the client sent before a 429/503 reached it was in flight, not sent into the window: one
 * arriving this soon after the answer left the sandbox is not counted (the client's event loop on a loaded
 * machine). A client that ignores the window still sends into the rest of it.
 */
const IN_FLIGHT_GRACE_MS = 200;

let f: ImportFixture;
let client: ChatportClient;
beforeAll(async () => {
  f = await startImportFixture({ tokenLifetimeSeconds: 2, jobs: { failProbability: 0.05 }, random: seededRandom(SEED) });
  client = createClient(
    {
      apiUrl: f.sandbox.url,
      auth: { kind: 'client-credentials', tokenUrl: f.sandbox.tokenUrl, ...f.sandbox.credentials },
      // Millisecond backoff, and enough attempts that a third of requests failing does not end a call.
      retry: { maxAttempts: 12, maxRateLimitedRetries: 60, baseDelayMs: 5, maxDelayMs: 40, maxTotalMs: 45_000 },
    },
    { random: seededRandom(SEED + 1) },
  );
});
afterAll(async () => {
  await client.close();
  await f.close();
});

interface Window {
  from: number;
  until: number;
  status: number;
  path: string;
}

/** The windows the sandbox announced: from when the answer left to the Retry-After time (date or seconds). */
function announcedWindows(requests: RecordedRequest[]): Window[] {
  return requests.flatMap((r) => {
    if (r.retryAfter === undefined || r.answeredAt === undefined) return [];
    const until = /^\d+$/.test(r.retryAfter) ? r.answeredAt + Number(r.retryAfter) * 1000 : Date.parse(r.retryAfter);
    return [{ from: r.answeredAt, until, status: r.status!, path: r.path }];
  });
}

function requestsInsideWindows(requests: RecordedRequest[], windows: Window[]) {
  return requests.flatMap((r) => {
    const inside = windows.find((w) => r.receivedAt > w.from + IN_FLIGHT_GRACE_MS && r.receivedAt < w.until);
    return inside ? [{ request: `${r.method} ${r.path}`, windowOf: `${inside.status} ${inside.path}`, msBeforeItsEnd: inside.until - r.receivedAt }] : [];
  });
}

it('a migration through the fault mix ends with exact counts and never sends inside a Retry-After window', async () => {
  const dir = join(f.dir, 'fault-mix');
  const csv = generateCsvs({ users: 4, channels: 3, messages: 240 }, 'mix-');
  await writeCsvs(dir, csv);
  const { config } = await writePipeline(dir, generatedPipeline('mix', 'chunkRecords: 15\n  concurrency: 3'));
  f.sandbox.setFaults(FAULT_MIX);
  f.sandbox.clearRequests();

  const report = await runImport({ config, stateDir: join(dir, 'state') }, { client });

  f.sandbox.setFaults([]);
  const requests = f.sandbox.requests();
  expect(report.status).toBe('succeeded');
  expect(report.stages.users).toMatchObject({ read: 4, imported: 4, rejected: 0 });
  expect(report.stages.channels).toMatchObject({ read: 3, imported: 3, rejected: 0 });
  expect(report.stages.messages).toMatchObject({ read: 240, imported: 240, rejected: 0 });

  // The mix really happened.
  const statuses = requests.map((r) => r.status);
  for (const status of [429, 503, 500, 307]) expect(statuses, `no ${status} answered`).toContain(status);
  expect(statuses.filter((s) => s === undefined).length, 'no connection was reset').toBeGreaterThan(0);
  expect(requests.filter((r) => r.path === '/oauth/token').length, 'the 2 s tokens were renewed').toBeGreaterThan(1);

  // The platform holds every record once, every channel's messages in source order.
  const users = (await all(client.users.list())).filter((u) => u.name.startsWith('mix-'));
  expect(users.map((u) => u.name).sort()).toEqual(['mix-user0', 'mix-user1', 'mix-user2', 'mix-user3']);
  const channels = (await all(client.channels.list())).filter((c) => c.name?.startsWith('mix-'));
  expect(channels).toHaveLength(3);
  for (let c = 0; c < 3; c++) {
    const channel = channels.find((ch) => ch.name === `mix-chan-${c}`)!;
    const bodies = (await all(client.channels.messages(channel.id, { pageSize: 100 }))).sort((a, b) => compareInt64(a.id, b.id)).map((m) => m.body);
    expect(bodies).toEqual(Array.from({ length: 80 }, (_, k) => `message number ${k * 3 + c}`));
  }

  // Not one request inside a window the sandbox announced with Retry-After.
  const windows = announcedWindows(requests);
  expect(windows.length).toBeGreaterThan(0);
  // Told apart so a failure says which rule broke: 429 windows, then the 503 ones (decisions.md: alike).
  expect(requestsInsideWindows(requests, windows.filter((w) => w.status === 429))).toEqual([]);
  expect(requestsInsideWindows(requests, windows.filter((w) => w.status === 503))).toEqual([]);
  expect(requestsInsideWindows(requests, windows)).toEqual([]);
}, 180_000);
