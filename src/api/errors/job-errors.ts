import { ChatportError } from '../../shared/errors.js';
import type { Int64 } from '../../shared/int64.js';

/** Milliseconds as the seconds a person gave (`--job-timeout 0.3`: "0.3", not "0"), without a double's noise (1.1 × 1000 is 1100.0000000000002). */
const secondsText = (ms: number): string => String(Number((ms / 1000).toPrecision(12)));

/** A job did not reach a final state before the caller's deadline. Transient: it may still finish. */
export class JobDeadlineError extends ChatportError {
  readonly jobId: Int64;
  constructor(jobId: Int64, facts: { type?: string; state?: string; waitedMs: number; deadlineMs?: number }) {
    const what = facts.type ? `job ${jobId} (${facts.type})` : `job ${jobId}`;
    super(
      `${what} is still ${facts.state ?? 'unfinished'} after ${secondsText(facts.deadlineMs ?? facts.waitedMs)} s, the deadline; ` +
        `it may still finish: check it with "chatport jobs get ${jobId}" or wait longer ("chatport jobs wait ${jobId} --timeout <seconds>")`,
      { code: 'JOB_DEADLINE_EXCEEDED', transient: true, details: { jobId, ...facts } },
    );
    this.jobId = jobId;
  }
}

/** A job ended FAILED. The API gives no reason (decisions.md "Jobs"), so the message cannot either. */
export class JobFailedError extends ChatportError {
  readonly jobId: Int64;
  constructor(jobId: Int64, facts: { type?: string; endedTime?: string }) {
    const what = facts.type ? `job ${jobId} (${facts.type})` : `job ${jobId}`;
    super(`${what} ended FAILED${facts.endedTime ? ` at ${facts.endedTime}` : ''}; the platform gives no reason for a failed job`, {
      code: 'JOB_FAILED',
      transient: false,
      details: { jobId, ...facts },
    });
    this.jobId = jobId;
  }
}
