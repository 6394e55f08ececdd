import type { Logger } from '../shared/logger.js';
import { realSleep } from '../shared/async.js';
import type { SandboxCapacity, SandboxJobOptions } from './options.js';
import type { JobRec, Store } from './store.js';

/** What a job's work gets: cancellation, the shared capacity throttle and the apply lock. */
export interface JobControl {
  jobId: number;
  signal: AbortSignal;
  /** Waits so that items processed across all jobs stay within `capacity.itemsPerSecond`. */
  throttle(items: number): Promise<void>;
  /**
   * Runs `fn` alone. Imports validate and apply inside it, so two jobs cannot both pass their
   * cross-checks (e.g. "name not taken") and then both apply.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Records facts on the job (an export's file) that the final state change must keep. */
  annotate(change: Pick<JobRec, 'exportFile'>): void;
}

/** The work of a job: resolves true for FINISHED, false for FAILED (throwing also FAILS it). */
export type JobWork = (control: JobControl) => Promise<boolean>;

interface Queued {
  job: JobRec;
  work: JobWork;
  stuck: boolean;
}

/**
 * Runs jobs in the background: PENDING (created, or waiting for a slot of `capacity.concurrentJobs`) →
 * RUNNING → FINISHED or FAILED, never ending before `minDurationMs` after creation. Options in force when
 * a job is created apply to it (so `stuck` affects jobs created from then on).
 */
export class JobEngine {
  private queue: Queued[] = [];
  private running = 0;
  private nextFreeAt = 0;
  private lock: Promise<unknown> = Promise.resolve();
  private readonly controller = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly store: Store,
    private options: SandboxJobOptions,
    private readonly capacity: SandboxCapacity,
    private readonly random: () => number,
    private readonly logger: Logger,
  ) {
    this.setOptions(options);
  }

  setOptions(options: SandboxJobOptions): void {
    this.options = { ...options };
    this.refused = new Set(options.refuseKeys ?? []);
  }

  private refused = new Set<string>();

  /** Whether the `refuseKeys` option refuses the item with this idempotency key. */
  refuses(key: string | undefined): boolean {
    return key !== undefined && this.refused.has(key);
  }

  /** Creates a PENDING job and schedules its work; the caller answers 202 with the record at once. */
  submit(type: string, work: JobWork): JobRec {
    const job: JobRec = { id: this.store.nextId('job'), type, state: 'PENDING', createdTime: Date.now() };
    this.store.change({ t: 'job', v: job });
    this.queue.push({ job, work, stuck: this.options.stuck === true });
    // Deferred so the 202 answer shows the job PENDING, as the description says new jobs are.
    setImmediate(() => this.pump());
    return job;
  }

  /** Stops taking work, aborts waits, and resolves once every started job has let go. */
  async close(): Promise<void> {
    this.controller.abort(new Error('sandbox closing'));
    this.queue = [];
    await Promise.allSettled([...this.inFlight]);
  }

  private pump(): void {
    const limit = this.capacity.concurrentJobs ?? Infinity;
    while (this.running < limit && this.queue.length > 0 && !this.controller.signal.aborted) {
      const next = this.queue.shift()!;
      this.running++;
      const running = this.run(next).finally(() => {
        this.inFlight.delete(running);
        this.running--;
        this.pump();
      });
      this.inFlight.add(running);
    }
  }

  private async run({ job, work, stuck }: Queued): Promise<void> {
    const signal = this.controller.signal;
    this.update(job, { state: 'RUNNING' });
    if (stuck) {
      // A job that never finishes: it keeps its slot until the sandbox closes.
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      return;
    }
    let ok = false;
    try {
      const failProbability = this.options.failProbability ?? 0;
      if (failProbability > 0 && this.random() < failProbability) {
        this.logger.warn({ jobId: job.id, type: job.type }, 'sandbox job FAILED by injected failProbability (nothing applied)');
      } else {
        ok = await work(this.control(job));
      }
      const waitMs = job.createdTime + (this.options.minDurationMs ?? 0) - Date.now();
      if (waitMs > 0) await realSleep(waitMs, signal);
    } catch (error) {
      if (signal.aborted) return;
      this.logger.error({ jobId: job.id, err: error instanceof Error ? error.message : String(error) }, 'sandbox job crashed');
      ok = false;
    }
    if (signal.aborted) return;
    this.update(job, { state: ok ? 'FINISHED' : 'FAILED', endedTime: Date.now() });
  }

  private update(job: JobRec, change: Partial<JobRec>): void {
    Object.assign(job, change);
    this.store.change({ t: 'job', v: { ...job } });
  }

  private control(job: JobRec): JobControl {
    const signal = this.controller.signal;
    return {
      jobId: job.id,
      signal,
      annotate: (change) => this.update(job, change),
      throttle: async (items) => {
        const rate = this.capacity.itemsPerSecond;
        if (!rate || items <= 0) return;
        const now = Date.now();
        const startAt = Math.max(now, this.nextFreeAt);
        this.nextFreeAt = startAt + (items / rate) * 1000;
        if (this.nextFreeAt - now > 0) await realSleep(this.nextFreeAt - now, signal);
      },
      exclusive: <T>(fn: () => Promise<T>) => {
        const result = this.lock.then(fn);
        this.lock = result.catch(() => undefined);
        return result;
      },
    };
  }
}
