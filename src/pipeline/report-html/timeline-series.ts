import type { StageName } from '../state/events.js';
import type { RunTimeline } from './run-timeline.js';

/** A series of (x, y) points: x in seconds since the run's start. */
export interface Series {
  label: string;
  points: Array<[number, number]>;
}

export interface TimelineSeries {
  /** Seconds from the run's start to its end (the charts' x range). */
  seconds: number;
  /** Records imported per second, per stage, averaged over each bucket. */
  throughput: Series[];
  /** Jobs in flight (submitted, not yet ended) at the end of each bucket, and the stages' concurrency limits. */
  inFlight: Series[];
  /** 429 answers met in each bucket. */
  rateLimited: Series[];
  /** Each job: when it ended (x) and how long it took in seconds (y), FINISHED and FAILED apart. */
  durations: Series[];
}

/** Cuts the run's time into `buckets` equal spans and derives what the charts draw. Pure. */
export function timelineSeries(timeline: RunTimeline, buckets = 60): TimelineSeries {
  const seconds = Math.max((timeline.end - timeline.start) / 1000, 0.001);
  const width = seconds / buckets;
  const bucketOf = (at: number) => Math.min(buckets - 1, Math.max(0, Math.floor((at - timeline.start) / 1000 / width)));
  const mids = Array.from({ length: buckets }, (_, i) => (i + 0.5) * width);
  const sinceStart = (at: number) => (at - timeline.start) / 1000;

  const perStage = new Map<StageName, number[]>();
  for (const job of timeline.jobs) {
    if (job.state !== 'FINISHED' || job.endedAt === undefined) continue;
    const row = perStage.get(job.stage) ?? new Array<number>(buckets).fill(0);
    row[bucketOf(job.endedAt)]! += job.records;
    perStage.set(job.stage, row);
  }
  const throughput = [...perStage].map(([stage, row]) => ({ label: stage, points: row.map((n, i): [number, number] => [mids[i]!, n / width]) }));

  const changes: Array<[number, number]> = [];
  for (const job of timeline.jobs) {
    changes.push([job.submittedAt, 1]);
    if (job.endedAt !== undefined) changes.push([job.endedAt, -1]);
  }
  changes.sort((a, b) => a[0] - b[0]);
  const inFlightPoints: Array<[number, number]> = [];
  let running = 0;
  let next = 0;
  for (let i = 0; i < buckets; i++) {
    const until = timeline.start + (i + 1) * width * 1000;
    let peak = running;
    while (next < changes.length && (changes[next]![0] < until || i === buckets - 1)) peak = Math.max(peak, (running += changes[next++]![1]));
    inFlightPoints.push([mids[i]!, peak]);
  }
  const limits = new Map<StageName, Array<[number, number]>>();
  for (const p of timeline.pacing) limits.set(p.stage, [...(limits.get(p.stage) ?? []), [sinceStart(p.at), p.concurrency]]);
  const inFlight = [{ label: 'jobs in flight (peak)', points: inFlightPoints }, ...[...limits].map(([stage, points]) => ({ label: `${stage} concurrency limit`, points }))];

  const limited = new Array<number>(buckets).fill(0);
  for (const p of timeline.pacing) limited[bucketOf(p.at)]! += p.newRateLimited;
  const rateLimited = [{ label: '429 answers', points: limited.map((n, i): [number, number] => [mids[i]!, n]) }];

  const finished: Array<[number, number]> = [];
  const failed: Array<[number, number]> = [];
  for (const job of timeline.jobs) {
    if (job.endedAt === undefined) continue;
    (job.state === 'FAILED' ? failed : finished).push([sinceStart(job.endedAt), (job.endedAt - job.submittedAt) / 1000]);
  }
  const durations = [{ label: 'FINISHED', points: finished }, { label: 'FAILED', points: failed }];
  return { seconds, throughput, inFlight, rateLimited, durations };
}
