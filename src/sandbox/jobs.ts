import type { Logger } from '../shared/logger.js';
import { realSleepUntil } from '../shared/async.js';
import { ProcessingLine } from './capacity.js';
import type { SandboxCapacity, SandboxJobOptions } from './options.js';
import type { JobRec, Store } from './store.js';

/** What a job's work gets: cancellation and the apply lock. */
export interface JobControl {
  jobId: number;
  signal: AbortSignal;
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
  /** Import items: the job's share of the processing line (`capacity.itemsPerSecond`). */
  items: number;
}

/**
 * Runs jobs in the background: PENDING (created, waiting for a slot of `capacity.concurrentJobs`, or
 * waiting its turn on the processing line) → RUNNING → FINISHED or FAILED, never ending before
 * `minDurationMs` after creation. With `capacity.itemsPerSecond`, an import job is RUNNING for its
 * items' processing time on the shared line (capacity.ts), then validated and applied at once. Options
 * in force when a job is created apply to it (so `stuck` affects jobs created from then on).
 */
export class JobEngine {
  private queue: Queued[] = [];
  private running = 0;
  private readonly line: ProcessingLine | undefined;
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
    this.line = capacity.itemsPerSecond ? new ProcessingLine(capacity.itemsPerSecond) : undefined;
  }

  setOptions(options: SandboxJobOptions): void {
    this.options = { ...options };
    this.refused = new Set(options.refuseKeys ?? []);
  }

  private refused = new Set<string>();

  /** Whether the `refuseKeys` option refuses any key at all. */
  get refusesAny(): boolean {
    return this.refused.size > 0;
  }

  /** Whether the `refuseKeys` option refuses the item with this idempotency key. */
  refuses(key: string | undefined): boolean {
    return key !== undefined && this.refused.has(key);
  }

  /**
   * Creates a PENDING job and schedules its work; the caller answers 202 with the record at once.
   * `items`: an import's item count, which sets its processing time under `capacity.itemsPerSecond`.
   */
  submit(type: string, work: JobWork, items = 0): JobRec {
    const job: JobRec = { id: this.store.nextId('job'), type, state: 'PENDING', createdTime: Date.now() };
    this.store.change({ t: 'job', v: job });
    this.queue.push({ job, work, stuck: this.options.stuck === true, items });
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

  private async run({ job, work, stuck, items }: Queued): Promise<void> {
    const signal = this.controller.signal;
    try {
      await this.process(job, items, signal);
    } catch {
      return; // closing
    }
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
      await realSleepUntil(job.createdTime + (this.options.minDurationMs ?? 0), signal);
    } catch (error) {
      if (signal.aborted) return;
      this.logger.error({ jobId: job.id, err: error instanceof Error ? error.message : String(error) }, 'sandbox job crashed');
      ok = false;
    }
    if (signal.aborted) return;
    this.update(job, { state: ok ? 'FINISHED' : 'FAILED', endedTime: Date.now() });
  }

  /** Waits for the job's turn on the processing line (PENDING), then through its processing time (RUNNING). */
  private async process(job: JobRec, items: number, signal: AbortSignal): Promise<void> {
    if (!this.line || items === 0) return this.update(job, { state: 'RUNNING' });
    const slot = this.line.reserve(items, Date.now());
    await realSleepUntil(slot.startAt, signal);
    this.update(job, { state: 'RUNNING' });
    await realSleepUntil(slot.endAt, signal);
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
      exclusive: <T>(fn: () => Promise<T>) => {
        const result = this.lock.then(fn);
        this.lock = result.catch(() => undefined);
        return result;
      },
    };
  }
}
