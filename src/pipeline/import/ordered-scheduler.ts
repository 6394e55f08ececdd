import pLimit from 'p-limit';

/**
 * Runs chunk uploads with bounded concurrency while keeping order where order matters.
 *
 * Messages are applied in the order their jobs are processed, and the import has no timestamp field, so two
 * chunks holding messages of the same channel must not overlap: the later one starts only after the earlier
 * one is done. Chunks name their "order keys" (the channels they touch); chunks with disjoint keys run in
 * parallel. Stages without an order (users, channels) pass no keys.
 */
export class OrderedScheduler {
  private readonly limit: ReturnType<typeof pLimit>;
  private readonly lastByKey = new Map<string, Promise<unknown>>();
  private readonly pending = new Set<Promise<unknown>>();
  private firstError: unknown;

  constructor(concurrency: number) {
    this.limit = pLimit(Math.max(1, concurrency));
  }

  schedule(orderKeys: readonly string[], task: () => Promise<void>): void {
    const deps = orderKeys.map((k) => this.lastByKey.get(k)).filter((p): p is Promise<unknown> => p !== undefined);
    // Once a chunk failed the stage stops: a chunk whose turn comes later is not uploaded (a resumed run
    // sends it), else the run would wait for its job as well, up to another job deadline.
    const guarded = async () => {
      if (this.firstError !== undefined) return;
      try {
        await task();
      } catch (error) {
        this.firstError ??= error; // before the limit starts the next chunk
        throw error;
      }
    };
    const run = Promise.all(deps).then(() => this.limit(guarded));
    for (const key of orderKeys) this.lastByKey.set(key, run);
    const tracked = run.catch((error: unknown) => {
      this.firstError ??= error;
    });
    this.pending.add(tracked);
    void tracked.finally(() => {
      this.pending.delete(tracked);
      for (const key of orderKeys) if (this.lastByKey.get(key) === run) this.lastByKey.delete(key);
    });
  }

  /** Resolves when fewer than `max` chunks are in flight; rejects as soon as any chunk failed. */
  async waitBelow(max: number): Promise<void> {
    while (this.pending.size >= max && this.firstError === undefined) await Promise.race(this.pending);
    if (this.firstError !== undefined) throw this.firstError;
  }

  /** Waits for everything scheduled; rejects with the first failure. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.race(this.pending);
    if (this.firstError !== undefined) throw this.firstError;
  }
}
