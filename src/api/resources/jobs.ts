import type { Now, Sleep } from '../../shared/async.js';
import type { Logger } from '../../shared/logger.js';
import { FINAL_JOB_STATES, Job, offsetPage } from '../../wire/resources.js';
import type { Transport } from '../core/transport.js';
import { JobDeadlineError } from '../errors/job-errors.js';
import { iterateItems, iteratePages } from '../hal/paginate.js';
import { checkId, checkPageSize, withSignal, type ListOptions } from './common.js';
import type { Int64 } from '../../shared/int64.js';

const SCOPES = ['read:job'];
const JobPage = offsetPage('jobs', Job);

export interface WaitForJobOptions {
  /** First pause between polls; default 1 000 ms. */
  initialIntervalMs?: number;
  /** The pause grows by `backoffFactor` up to this; default 15 000 ms. */
  maxIntervalMs?: number;
  /** Default 1.5. */
  backoffFactor?: number;
  /** Give up (JOB_DEADLINE_EXCEEDED, naming the job) after this long; default 3 600 000 ms (1 h). */
  timeoutMs?: number;
  /**
   * Replaces the growing interval: milliseconds to wait before poll number `polls + 1` (0 before the
   * first, which then waits too), e.g. fitted to the job's expected duration.
   */
  nextPollMs?: (polls: number) => number;
  /** Called with every polled state, e.g. to log progress. */
  onPoll?: (job: Job) => void;
  signal?: AbortSignal;
}

export interface JobsResource {
  get(id: Int64, options?: { signal?: AbortSignal }): Promise<Job>;
  /** Every job, page by page (`running`: only running jobs). */
  list(options?: ListOptions & { running?: boolean }): AsyncIterable<Job>;
  /** Polls until the job is FINISHED or FAILED and returns it; throws JobDeadlineError at the deadline. */
  wait(id: Int64, options?: WaitForJobOptions): Promise<Job>;
}

export function createJobsResource(transport: Transport, deps: { sleep: Sleep; now: Now; logger: Logger }): JobsResource {
  const get: JobsResource['get'] = (id, options = {}) =>
    transport.sendJson({ operation: `get job ${id}`, method: 'GET', path: `/jobs/${checkId('job', id)}`, scopes: SCOPES, retry: 'idempotent', ...withSignal(options.signal) }, Job);

  return {
    get,
    list(options = {}) {
      const query = { size: checkPageSize(options.pageSize), ...(options.running ? { running: true } : {}) };
      return iterateItems<Job>(
        iteratePages(transport, { operation: 'list jobs', method: 'GET', path: '/jobs', query, scopes: SCOPES, retry: 'idempotent', ...withSignal(options.signal) }, JobPage, 'jobs'),
      );
    },
    // openai-node's pollUntilDone, with a deadline and a growing interval.
    async wait(id, options = {}) {
      const { initialIntervalMs = 1_000, maxIntervalMs = 15_000, backoffFactor = 1.5, timeoutMs = 3_600_000 } = options;
      const started = deps.now();
      let interval = initialIntervalMs;
      let polls = 0;
      if (options.nextPollMs) await deps.sleep(Math.min(options.nextPollMs(0), timeoutMs), options.signal);
      for (;;) {
        const job = await get(id, withSignal(options.signal));
        polls++;
        options.onPoll?.(job);
        if (FINAL_JOB_STATES.has(job.state)) return job;
        const waited = deps.now() - started;
        if (waited >= timeoutMs) throw new JobDeadlineError(id, { type: job.type, state: job.state, waitedMs: waited, deadlineMs: timeoutMs });
        const next = options.nextPollMs ? options.nextPollMs(polls) : interval;
        deps.logger.debug({ jobId: id, state: job.state, nextPollMs: next }, 'job not finished yet');
        await deps.sleep(Math.min(next, timeoutMs - waited), options.signal);
        interval = Math.min(maxIntervalMs, interval * backoffFactor);
      }
    },
  };
}
