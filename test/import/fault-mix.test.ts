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
import type { FaultRule } from '../../src/sandbox/options.js';
import { seededRandom } from '../../src/shared/seeded-random.js';
import { recordClientWire, type WireEvent } from '../helpers/client-wire-log.js';
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
  /** Index in the client's wire events from which the client knew of the window (its answer read). */
  seenAt: number;
  until: number;
  status: number;
  path: string;
}

/**
 * The windows the sandbox announced, as the client received them: from the moment the client had read
 * the answer (its body too: the client acts on an error once it has read it) to the Retry-After time (a
 * date, or seconds counted from the answer's arrival: the client counts from later still).
 */
function announcedWindows(events: WireEvent[]): Window[] {
  return events.flatMap((e, index) => {
    if (e.kind !== 'read') return [];
    const answer = events[e.of]!;
    if (answer.kind !== 'answered' || answer.retryAfter === undefined) return [];
    const until = /^\d+$/.test(answer.retryAfter) ? answer.at + Number(answer.retryAfter) * 1000 : Date.parse(answer.retryAfter);
    return [{ seenAt: index, until, status: answer.status, path: answer.path }];
  });
}

/**
 * Requests the client sent after it had read an answer announcing a window, before the window ended.
 * Judged by order (sent after the answer was read), so a request already on its way is never counted,
 * however loaded the machine: no grace. Load only makes a request later, never earlier.
 */
function requestsInsideWindows(events: WireEvent[], windows: Window[]) {
  return events.flatMap((e, index) => {
    if (e.kind !== 'sent') return [];
    const inside = windows.find((w) => index > w.seenAt && e.at < w.until);
    return inside ? [{ request: `${e.method} ${e.path}`, windowOf: `${inside.status} ${inside.path}`, msBeforeItsEnd: inside.until - e.at }] : [];
  });
}

it('a migration through the fault mix ends with exact counts and never sends inside a Retry-After window', async () => {
  const dir = join(f.dir, 'fault-mix');
  const csv = generateCsvs({ users: 4, channels: 3, messages: 240 }, 'mix-');
  await writeCsvs(dir, csv);
  const { config } = await writePipeline(dir, generatedPipeline('mix', 'chunkRecords: 15\n  concurrency: 3'));
  f.sandbox.setFaults(FAULT_MIX);
  f.sandbox.clearRequests();
  const wire = recordClientWire();

  const report = await runImport({ config, stateDir: join(dir, 'state') }, { client }).finally(() => wire.stop());

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
  const windows = announcedWindows(wire.events);
  expect(windows.length).toBeGreaterThan(0);
  // The client saw every answer the sandbox gave (the log is complete), resets aside.
  expect(wire.events.filter((e) => e.kind === 'answered')).toHaveLength(requests.filter((r) => r.status !== undefined).length);
  // Told apart so a failure says which rule broke: 429 windows, then the 503 ones (decisions.md: alike).
  expect(requestsInsideWindows(wire.events, windows.filter((w) => w.status === 429))).toEqual([]);
  expect(requestsInsideWindows(wire.events, windows.filter((w) => w.status === 503))).toEqual([]);
  expect(requestsInsideWindows(wire.events, windows)).toEqual([]);
}, 180_000);
