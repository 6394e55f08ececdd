import type { JournalEvent, StageName } from '../state/events.js';

/** One import job of the run, from its part-submitted and part-ended events. */
export interface JobSpan {
  stage: StageName;
  submittedAt: number;
  /** Absent while the job was still in flight when the journal ends (an interrupted attempt). */
  endedAt?: number;
  state?: 'FINISHED' | 'FAILED';
  /** Records the job carried: the chunk's, or its share for a part of a split chunk. */
  records: number;
}

/** A moment the stage's upload concurrency changed or the client met 429s. */
export interface PacingPoint {
  stage: StageName;
  at: number;
  concurrency: number;
  /** 429 answers met since the previous point of the same attempt. */
  newRateLimited: number;
}

export interface RunTimeline {
  /** First run-started of the run and the last timestamped event (ms since the epoch). */
  start: number;
  end: number;
  jobs: JobSpan[];
  pacing: PacingPoint[];
  /** When each attempt started (a resumed run has several). */
  attempts: number[];
}

const TIMELINE_EVENT_TYPES = ['run-started', 'chunk-written', 'part-submitted', 'part-ended', 'upload-pacing', 'stage-done', 'run-ended'] as const;
/** The events a timeline is drawn from: runTimeline's switch takes no other (the type checker holds it to this list). */
export type TimelineEvent = Extract<JournalEvent, { t: (typeof TIMELINE_EVENT_TYPES)[number] }>;
const TIMELINE_TYPES: ReadonlySet<string> = new Set(TIMELINE_EVENT_TYPES);

export function isTimelineEvent(e: JournalEvent): e is TimelineEvent {
  return TIMELINE_TYPES.has(e.t);
}

/** The journal's timeline events that belong to `runId`: from its first run-started to the next run's. Pure. */
export function eventsOfRun(events: readonly JournalEvent[], runId: string): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  let inRun = false;
  for (const e of events) {
    if (e.t === 'run-started') inRun = e.runId === runId;
    if (inRun && isTimelineEvent(e)) out.push(e);
  }
  return out;
}

/** The run's jobs and pacing, in time, from its journal events (see eventsOfRun). Pure. */
export function runTimeline(events: readonly TimelineEvent[], endedAt: number): RunTimeline {
  const chunkRecords = new Map<string, number>();
  const open = new Map<string, JobSpan>();
  const jobs: JobSpan[] = [];
  const pacing: PacingPoint[] = [];
  const attempts: number[] = [];
  let rateLimitedSeen = 0;
  let start = endedAt;
  let end = 0;
  const seen = (at: number) => {
    start = Math.min(start, at);
    end = Math.max(end, at);
  };
  for (const e of events) {
    switch (e.t) {
      case 'run-started':
        attempts.push(Date.parse(e.at));
        seen(Date.parse(e.at));
        rateLimitedSeen = 0; // the client's count starts again with each process
        break;
      case 'chunk-written':
        chunkRecords.set(`${e.stage}/${e.seq}`, e.records);
        break;
      case 'part-submitted': {
        const job: JobSpan = { stage: e.stage, submittedAt: Date.parse(e.at), records: partRecords(chunkRecords.get(`${e.stage}/${e.seq}`) ?? 0, e.part) };
        jobs.push(job);
        open.set(`${e.stage}/${e.seq}/${e.part}/${String(e.jobId)}`, job);
        seen(job.submittedAt);
        break;
      }
      case 'part-ended': {
        const job = open.get(`${e.stage}/${e.seq}/${e.part}/${String(e.jobId)}`);
        if (!job) break;
        job.endedAt = Date.parse(e.at);
        job.state = e.state;
        seen(job.endedAt);
        break;
      }
      case 'upload-pacing':
        pacing.push({ stage: e.stage, at: Date.parse(e.at), concurrency: e.concurrency, newRateLimited: Math.max(0, e.rateLimited - rateLimitedSeen) });
        rateLimitedSeen = e.rateLimited;
        seen(Date.parse(e.at));
        break;
      case 'stage-done':
      case 'run-ended':
        seen(Date.parse(e.at));
        break;
    }
  }
  end = Math.max(end, endedAt);
  return { start: Math.min(start, end), end, jobs, pacing, attempts };
}

/** A part's share of its chunk's records: `''` is all of them, each digit halves (as the split does). */
function partRecords(records: number, part: string): number {
  let lo = 0;
  let hi = records;
  for (const digit of part) {
    const mid = lo + Math.ceil((hi - lo) / 2);
    if (digit === '0') hi = mid;
    else lo = mid;
  }
  return hi - lo;
}
