import type { Int64 } from '../../src/shared/int64.js';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/shared/exit-codes.js';
import { importChunk, type ChunkOps } from '../../src/pipeline/import/import-chunk.js';
import { JobHealth, PlatformFailingError } from '../../src/pipeline/import/job-health.js';
import { foldRunState } from '../../src/pipeline/state/run-state.js';
import type { JournalEvent } from '../../src/pipeline/state/events.js';

/**
 * A narrow unit test: the platform here is a fake with the one property that matters, all-or-nothing jobs
 * and idempotency keys. The HTTP path is covered by the pipeline's integration tests against the sandbox.
 */
function fakePlatform(bad: Set<string>, options: { failFirstJobs?: number; crashOnSubmit?: number } = {}) {
  const applied = new Map<string, number>();
  const jobs = new Map<Int64, 'FINISHED' | 'FAILED'>();
  let nextId = 1;
  let submits = 0;
  let failFirst = options.failFirstJobs ?? 0;
  const platform = {
    applied,
    /** While true, every job FAILS whatever it holds (an outage). */
    outage: false,
    probes: 0,
    submit(items: readonly string[]): number {
      submits++;
      if (options.crashOnSubmit !== undefined && submits === options.crashOnSubmit) throw new Error('crash');
      const id = nextId++;
      const keys = items.map((s) => (JSON.parse(s) as { idempotencyKey: string }).idempotencyKey);
      const fails = platform.outage || failFirst > 0 || keys.some((k) => bad.has(k));
      if (failFirst > 0) failFirst--;
      if (!fails) for (const k of keys) if (!applied.has(k)) applied.set(k, 1);
      jobs.set(id, fails ? 'FAILED' : 'FINISHED');
      return id;
    },
    state: (id: Int64) => jobs.get(id)!,
    probe(): 'FINISHED' | 'FAILED' {
      platform.probes++;
      return platform.state(platform.submit([]));
    },
  };
  return platform;
}

const items = Array.from({ length: 10 }, (_, i) => JSON.stringify({ idempotencyKey: `k${i}`, name: `u${i}` }));

function setup(events: JournalEvent[], platform: ReturnType<typeof fakePlatform>, health = new JobHealth()) {
  const ops: ChunkOps = {
    submit: async (lo, hi) => platform.submit(items.slice(lo, hi)),
    wait: async (id) => platform.state(id),
    probe: async () => platform.probe(),
    health,
    record: async (e) => void events.push(e),
    onFailedJob: () => undefined,
    now: () => '2026-11-22T00:00:00Z',
  };
  return ops;
}

const written: JournalEvent = { t: 'chunk-written', stage: 'users', seq: 0, file: 'c0.json', records: 10, bytes: 1, sha256: 'x' };

describe('importChunk', () => {
  it('imports a clean chunk with one job', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set());
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    const outcome = await importChunk('users', chunk, setup(events, platform));
    expect(outcome).toEqual({ imported: 10, refused: [] });
    expect(events.filter((e) => e.t === 'part-submitted')).toHaveLength(1);
    expect(platform.applied.size).toBe(10);
  });

  it('isolates exactly the bad items of a FAILED job and imports the rest', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set(['k3', 'k7']));
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    const outcome = await importChunk('users', chunk, setup(events, platform));
    expect(outcome.refused).toEqual([3, 7]);
    expect(outcome.imported).toBe(8);
    expect([...platform.applied.keys()].sort()).toEqual(['k0', 'k1', 'k2', 'k4', 'k5', 'k6', 'k8', 'k9']);
    expect(events.filter((e) => e.t === 'item-refused').map((e) => (e as { index: number }).index)).toEqual([3, 7]);
  });

  it('retries a whole chunk that FAILED for a passing reason before splitting it', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set(), { failFirstJobs: 1 });
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    const outcome = await importChunk('users', chunk, setup(events, platform));
    expect(outcome).toEqual({ imported: 10, refused: [] });
    expect(events.filter((e) => e.t === 'part-submitted').map((e) => (e as { part: string }).part)).toEqual(['', '']);
  });

  it('resumes after a crash mid-bisection from the journal, without re-sending finished parts', async () => {
    const events: JournalEvent[] = [written];
    const bad = new Set(['k6']);
    const first = fakePlatform(bad, { crashOnSubmit: 4 });
    const chunk1 = foldRunState(events).stages.users.chunks.get(0)!;
    await expect(importChunk('users', chunk1, setup(events, first))).rejects.toThrow('crash');
    const submittedBefore = events.filter((e) => e.t === 'part-submitted').length;

    // The restarted process folds the journal and goes on against the same platform state.
    const second = fakePlatform(bad);
    for (const [k, v] of first.applied) second.applied.set(k, v);
    const chunk2 = foldRunState(events).stages.users.chunks.get(0)!;
    const outcome = await importChunk('users', chunk2, setup(events, second));
    expect(outcome.refused).toEqual([6]);
    expect(outcome.imported).toBe(9);
    expect([...second.applied.keys()].sort()).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k7', 'k8', 'k9']);
    const parts = events.filter((e) => e.t === 'part-submitted').map((e) => (e as { part: string }).part);
    // Nothing that FINISHED before the crash is sent again.
    const finishedBefore = events.slice(0, submittedBefore * 2 + 1).filter((e) => e.t === 'part-ended' && e.state === 'FINISHED');
    for (const f of finishedBefore) expect(parts.filter((p) => p === (f as { part: string }).part)).toHaveLength(1);
  });

  it('refuses a bad item only after a job FINISHED between its tries: here a probe, as nothing else ran', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set(['k0']));
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    const outcome = await importChunk('users', chunk, setup(events, platform));
    expect(outcome).toEqual({ imported: 9, refused: [0] });
    expect(platform.probes).toBe(1);
    const tries = events.filter((e) => e.t === 'part-ended' && e.part === '0000');
    expect(tries.map((e) => (e as { state: string }).state)).toEqual(['FAILED', 'FAILED', 'FAILED']);
  });

  it('refuses nothing when every job FAILS, and stops with a transient error (exit 75)', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set());
    platform.outage = true;
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    const error = await importChunk('users', chunk, setup(events, platform)).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformFailingError);
    expect((error as PlatformFailingError).transient).toBe(true);
    expect(exitCodeFor(error)).toBe(75);
    expect(events.filter((e) => e.t === 'item-refused')).toEqual([]);

    // The outage is over: the resumed attempt's tries are its own, and everything goes in.
    platform.outage = false;
    const resumed = foldRunState(events).stages.users.chunks.get(0)!;
    expect(await importChunk('users', resumed, setup(events, platform))).toEqual({ imported: 10, refused: [] });
    expect(platform.applied.size).toBe(10);
  });

  it('stops a long row of FAILED jobs across chunks once a probe FAILS too, before bisecting everything', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set());
    platform.outage = true;
    const health = new JobHealth(4);
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    await expect(importChunk('users', chunk, setup(events, platform, health))).rejects.toBeInstanceOf(PlatformFailingError);
    expect(events.filter((e) => e.t === 'part-ended')).toHaveLength(4);
    expect(platform.probes).toBe(1);
  });

  it('an outage that ends in the middle of a bisection refuses nothing: the item\'s last try comes after a FINISHED job', async () => {
    const events: JournalEvent[] = [written];
    // The whole chunk twice, its halves down to item 0, and item 0 twice: 2 + 3 + 2 FAILED jobs.
    const platform = fakePlatform(new Set(), { failFirstJobs: 7 });
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    expect(await importChunk('users', chunk, setup(events, platform))).toEqual({ imported: 10, refused: [] });
    expect(platform.applied.size).toBe(10);
  });

  it('a resumed attempt tries an item refused earlier once more, and imports it when it FINISHES', async () => {
    const events: JournalEvent[] = [written];
    const bad = new Set(['k4']);
    const platform = fakePlatform(bad);
    const first = foldRunState(events).stages.users.chunks.get(0)!;
    expect((await importChunk('users', first, setup(events, platform))).refused).toEqual([4]);

    // A resumed attempt while the item is still refused: one more try, still refused.
    const submitted = () => events.filter((e) => e.t === 'part-submitted').length;
    const before = submitted();
    expect(await importChunk('users', foldRunState(events).stages.users.chunks.get(0)!, setup(events, platform))).toEqual({ imported: 9, refused: [4] });
    expect(submitted()).toBe(before + 1);

    // What made the platform refuse it was fixed: the next resumed attempt imports it, and the journal says so.
    bad.clear();
    expect(await importChunk('users', foldRunState(events).stages.users.chunks.get(0)!, setup(events, platform))).toEqual({ imported: 10, refused: [] });
    expect(platform.applied.has('k4')).toBe(true);
    expect(foldRunState(events).stages.users.chunks.get(0)!.refused.size).toBe(0);
  });

  it('a job sent just now that the platform does not know stops the chunk instead of sending it again and again', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set());
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    const ops: ChunkOps = { ...setup(events, platform), wait: async () => 'GONE' };
    await expect(importChunk('users', chunk, ops)).rejects.toMatchObject({ code: 'API_UNAVAILABLE', details: { jobId: 1 } });
    expect(events.filter((e) => e.t === 'part-submitted')).toHaveLength(1);
  });
});
