/** Processing time credited to a platform that sat idle: a small burst, never more. */
export const BURST_MS = 50;

/** When a job's items are processed: from `startAt` (it is PENDING before) to `endAt`. */
export interface ProcessingSlot {
  startAt: number;
  endAt: number;
}

/**
 * The platform's import capacity: one processing line of `itemsPerSecond` items per second shared by
 * every job. A job takes its place in line when it is accepted (receiving and validating the file are
 * not part of the line, so they overlap the processing of the jobs ahead) and is processed right after
 * the one before it, for items / itemsPerSecond. Time the line stands idle is lost, except a burst of
 * BURST_MS: a job arriving after a pause starts at most that much "in the past". Pure: the caller gives
 * the time.
 */
export class ProcessingLine {
  private freeAt = -Infinity;

  constructor(private readonly itemsPerSecond: number) {}

  reserve(items: number, now: number): ProcessingSlot {
    const startAt = Math.max(now - BURST_MS, this.freeAt);
    const endAt = startAt + (Math.max(0, items) / this.itemsPerSecond) * 1000;
    this.freeAt = endAt;
    return { startAt, endAt };
  }
}
