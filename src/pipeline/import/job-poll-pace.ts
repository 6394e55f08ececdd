import type { Int64 } from '../../shared/int64.js';
/** Polls before the first estimate: soon, then doubling to at most a second apart. */
const UNKNOWN_FIRST_MS = 25;
const UNKNOWN_MAX_MS = 1000;
/** Halving the time left toward an expected end stops at this much: then the next poll is at the end. */
const LEFT_MIN_MS = 25;
/** From the expected end on: a twentieth of the job's expected time, within these bounds. */
const AFTER_END_MIN_MS = 50;
const AFTER_END_MAX_MS = 250;
/** Weight of the newest throughput sample. */
const SAMPLE_WEIGHT = 0.3;

interface Tracked {
  bytes: number;
  submittedAt: number;
}

/**
 * When to poll an import job, from its size and the platform's observed throughput: at half the time
 * left, and at the end, of the time the job alone would take (a platform that runs jobs side by side is
 * done then), then the same toward its end behind the jobs ahead of it, then often from that end on, so a finished job is seen
 * within a fraction of its own duration, never seconds late. "Behind the jobs ahead": the platform is
 * taken to work through files in order, on one line that has been busy with the unfinished jobs
 * uploaded before this one since the last job was seen ending. Polling before the expected end is what
 * lets an estimate that was too long correct itself. Throughput is learned from jobs seen finishing:
 * their bytes over the time from when the line could start on them (their upload, or the previous job
 * seen ending) to when they were seen done. Pure: times are given.
 */
export class JobPollPace {
  /** Unfinished jobs in upload order. */
  private readonly jobs = new Map<Int64, Tracked>();
  private bytesPerMs: number | undefined;
  private lastSeenEndAt = 0;

  submitted(jobId: Int64, bytes: number, now: number): void {
    this.jobs.set(jobId, { bytes, submittedAt: now });
  }

  /** Milliseconds until the next poll of `jobId`; `polls`: polls already made (0: just uploaded). */
  nextPollMs(jobId: Int64, polls: number, now: number): number {
    const job = this.jobs.get(jobId);
    if (!job || !this.bytesPerMs) return Math.min(UNKNOWN_MAX_MS, UNKNOWN_FIRST_MS * 2 ** polls);
    const ownMs = job.bytes / this.bytesPerMs;
    const aloneEnd = job.submittedAt + ownMs;
    const lineEnd = Math.max(job.submittedAt, this.lastSeenEndAt) + (this.bytesAhead(jobId) + job.bytes) / this.bytesPerMs;
    for (const end of [aloneEnd, lineEnd]) {
      const left = end - now;
      if (left > 2 * LEFT_MIN_MS) return left / 2;
      if (left > 0) return left;
    }
    return Math.min(AFTER_END_MAX_MS, Math.max(AFTER_END_MIN_MS, ownMs / 20));
  }

  /** A job no longer waited for (its wait failed): it teaches nothing. */
  forget(jobId: Int64): void {
    this.jobs.delete(jobId);
  }

  /** The job was seen final at `now`: learn the throughput from it. */
  ended(jobId: Int64, now: number): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    this.jobs.delete(jobId);
    const from = Math.max(job.submittedAt, this.lastSeenEndAt);
    this.lastSeenEndAt = Math.max(this.lastSeenEndAt, now);
    if (now <= from) return;
    const sample = job.bytes / (now - from);
    this.bytesPerMs = this.bytesPerMs === undefined ? sample : this.bytesPerMs * (1 - SAMPLE_WEIGHT) + sample * SAMPLE_WEIGHT;
  }

  private bytesAhead(jobId: Int64): number {
    let bytes = 0;
    for (const [id, other] of this.jobs) {
      if (id === jobId) break;
      bytes += other.bytes;
    }
    return bytes;
  }
}
