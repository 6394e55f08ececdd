import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '../../src/api/index.js';
import { shardClientOptions } from '../../src/cli/pipeline-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import { all, generatedPipeline, startImportFixture, writeCsvs, writePipeline, type ImportFixture } from '../import/support.js';
import { expectedBodies, platformBodies, shardedCsvs } from './support.js';

/**
 * Three shards of one CSV pipeline, run at once against one sandbox, against a single run of the same input
 * into a second sandbox: the platforms hold the same users, channels and messages, each channel's in source
 * order; each record is counted by exactly one shard (users by all of them, created once).
 */
let sharded: ImportFixture;
let single: ImportFixture;
let reports: RunReport[];
let singleReport: RunReport;
const csv = shardedCsvs('');
const N = 3;

beforeAll(async () => {
  [sharded, single] = await Promise.all([startImportFixture(), startImportFixture()]);
  await writeCsvs(sharded.dir, csv);
  await writeCsvs(single.dir, csv);
  const { config: base } = await writePipeline(sharded.dir, generatedPipeline('sharded', 'chunkRecords: 40\n  concurrency: 2'));
  reports = await Promise.all(
    Array.from({ length: N }, (_, index) => runImport({ config: { ...base, shard: { index, count: N } }, stateDir: join(sharded.dir, 'state'), verify: {} }, { client: sharded.client })),
  );
  const { config } = await writePipeline(single.dir, generatedPipeline('sharded', 'chunkRecords: 40\n  concurrency: 2'));
  singleReport = await runImport({ config, stateDir: join(single.dir, 'state') }, { client: single.client });
}, 120_000);
afterAll(async () => {
  await sharded?.close();
  await single?.close();
});

const sum = (stage: string, field: 'read' | 'imported' | 'rejected' | 'skipped') => reports.reduce((n, r) => n + (r.stages[stage as 'messages']?.[field] ?? 0), 0);

describe('an import split over three shards', () => {
  it('splits channels, members and messages by channel, and gives every user to every shard', () => {
    const owners = new Set(Array.from({ length: 7 }, (_, c) => shardOfKey(`c${c}`, N)));
    expect(owners.size).toBe(N); // the input really spreads over all three
    for (const [index, report] of reports.entries()) {
      expect(report.shard).toEqual({ index, count: N });
      expect(report.status).toBe(report.totals.rejected > 0 ? 'completed-with-rejects' : 'succeeded');
      expect(report.stages.users).toMatchObject({ read: 6, imported: 6 });
      const mine = Array.from({ length: 7 }, (_, c) => c).filter((c) => shardOfKey(`c${c}`, N) === index);
      expect(report.stages.channels).toMatchObject({ read: mine.length, imported: mine.length });
      expect(report.totals.balanced).toBe(true);
      expect(report.runDir).toContain(`shard-${index}-of-${N}`);
      // Each shard verified its own channels against the platform while the others were still writing theirs.
      expect(report.verification?.status).toBe('exact');
    }
  });

  it('counts each record once over all shards, as the single run does', () => {
    for (const stage of ['channels', 'messages'])
      for (const field of ['read', 'imported', 'rejected', 'skipped'] as const) expect(sum(stage, field)).toBe(singleReport.stages[stage as 'messages']![field]);
    expect(sum('messages', 'read')).toBe(700 + 2);
    expect(sum('messages', 'rejected')).toBe(2);
  });

  it('leaves the platform holding what a single run leaves: every message once, in source order per channel', async () => {
    const held = await platformBodies(sharded.client, '');
    expect(held).toEqual(expectedBodies(csv));
    expect(held).toEqual(await platformBodies(single.client, ''));
    expect((await all(sharded.client.users.list({ pageSize: 100 }))).map((u) => u.name).sort()).toEqual(
      (await all(single.client.users.list({ pageSize: 100 }))).map((u) => u.name).sort(),
    );
  });
});

describe('three shards under the platform\'s shared rate limit', () => {
  it('import exactly, each shard naming itself, Retry-After windows passed on through the state volume', async () => {
    const f = await startImportFixture();
    try {
      const prefix = 'rl-';
      const input = shardedCsvs(prefix, { users: 4, channels: 6, messages: 300 });
      await writeCsvs(f.dir, input);
      const { config: base } = await writePipeline(f.dir, generatedPipeline('rate-limited', 'chunkRecords: 15\n  concurrency: 2'));
      const state = join(f.dir, 'state');
      await mkdir(state, { recursive: true });
      f.sandbox.setFaults([{ method: 'POST', path: '/imports/**', fault: { kind: 'rateLimit', budget: 6, windowMs: 1000 } }]);
      const clients = Array.from({ length: N }, (_, index) => shardClient(f, { index, count: N }, state));
      try {
        const runs = await Promise.all(clients.map((client, index) => runImport({ config: { ...base, shard: { index, count: N } }, stateDir: state }, { client })));
        expect(runs.map((r) => r.totals.balanced)).toEqual([true, true, true]);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
      const uploads = f.sandbox.requests().filter((r) => r.method === 'POST' && r.path.startsWith('/imports/'));
      expect(uploads.some((r) => r.status === 429)).toBe(true); // the limit was met
      expect(new Set(uploads.map((r) => r.headers['user-agent']))).toEqual(new Set([0, 1, 2].map((i) => `chatport (shard ${i}/${N})`)));
      expect(Number(await readFile(join(state, 'rate-gate.json'), 'utf8'))).toBeGreaterThan(0);
      f.sandbox.setFaults([]);
      expect(await platformBodies(f.client, prefix)).toEqual(expectedBodies(input));
    } finally {
      await f.close();
    }
  }, 120_000);
});

/** A shard's client as the CLI makes it (pipeline-client.ts), over the fixture's sandbox. */
function shardClient(f: ImportFixture, shard: { index: number; count: number }, stateDir: string) {
  return createClient({
    apiUrl: f.sandbox.url,
    auth: { kind: 'client-credentials', tokenUrl: f.sandbox.tokenUrl, ...f.sandbox.credentials },
    retry: 'rapid',
    ...shardClientOptions(shard, stateDir),
  });
}
