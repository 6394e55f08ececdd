import { describe, expect, it } from 'vitest';
import { importChunk, type ChunkOps } from '../../src/pipeline/import/import-chunk.js';
import { foldRunState } from '../../src/pipeline/state/run-state.js';
import type { JournalEvent } from '../../src/pipeline/state/events.js';

/**
 * A narrow unit test: the platform here is a fake with the one property that matters, all-or-nothing jobs
 * and idempotency keys. The HTTP path is covered by the pipeline's integration tests against the sandbox.
 */
function fakePlatform(bad: Set<string>, options: { failFirstJobs?: number; crashOnSubmit?: number } = {}) {
  const applied = new Map<string, number>();
  const jobs = new Map<number, 'FINISHED' | 'FAILED'>();
  let nextId = 1;
  let submits = 0;
  let failFirst = options.failFirstJobs ?? 0;
  return {
    applied,
    submit(items: readonly string[]): number {
      submits++;
      if (options.crashOnSubmit !== undefined && submits === options.crashOnSubmit) throw new Error('crash');
      const id = nextId++;
      const keys = items.map((s) => (JSON.parse(s) as { idempotencyKey: string }).idempotencyKey);
      const fails = failFirst > 0 || keys.some((k) => bad.has(k));
      if (failFirst > 0) failFirst--;
      if (!fails) for (const k of keys) if (!applied.has(k)) applied.set(k, 1);
      jobs.set(id, fails ? 'FAILED' : 'FINISHED');
      return id;
    },
    state: (id: number) => jobs.get(id)!,
  };
}

const items = Array.from({ length: 10 }, (_, i) => JSON.stringify({ idempotencyKey: `k${i}`, name: `u${i}` }));

function setup(events: JournalEvent[], platform: ReturnType<typeof fakePlatform>) {
  const ops: ChunkOps = {
    submit: async (lo, hi) => platform.submit(items.slice(lo, hi)),
    wait: async (id) => platform.state(id),
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

  it('a job sent just now that the platform does not know stops the chunk instead of sending it again and again', async () => {
    const events: JournalEvent[] = [written];
    const platform = fakePlatform(new Set());
    const chunk = foldRunState(events).stages.users.chunks.get(0)!;
    const ops: ChunkOps = { ...setup(events, platform), wait: async () => 'GONE' };
    await expect(importChunk('users', chunk, ops)).rejects.toMatchObject({ code: 'API_UNAVAILABLE', details: { jobId: 1 } });
    expect(events.filter((e) => e.t === 'part-submitted')).toHaveLength(1);
  });
});
