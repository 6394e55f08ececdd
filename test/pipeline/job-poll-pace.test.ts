import { describe, expect, it } from 'vitest';
import { JobPollPace } from '../../src/pipeline/import/job-poll-pace.js';

/**
 * A client keeping `inFlight` jobs of `bytes` each at a platform, polling each by the pace; the platform
 * ends jobs at `endOf(submittedAt, previousEnd)`. Virtual time: returns how late each job was seen and
 * how many polls it took.
 */
function simulate(jobs: number, inFlight: number, endOf: (submittedAt: number, previousEnd: number) => number) {
  const pace = new JobPollPace();
  const live = new Map<number, { end: number; nextPollAt: number; polls: number }>();
  const seen: Array<{ late: number; polls: number }> = [];
  let now = 0;
  let submitted = 0;
  let previousEnd = 0;
  const submit = () => {
    const id = ++submitted;
    const end = endOf(now, previousEnd);
    previousEnd = end;
    pace.submitted(id, 1_000_000, now);
    live.set(id, { end, nextPollAt: now + pace.nextPollMs(id, 0, now), polls: 0 });
  };
  while (submitted < Math.min(inFlight, jobs)) submit();
  while (live.size > 0) {
    const [id, job] = [...live].reduce((a, b) => (b[1].nextPollAt < a[1].nextPollAt ? b : a));
    now = job.nextPollAt;
    job.polls++;
    if (now >= job.end) {
      live.delete(id);
      pace.ended(id, now);
      seen.push({ late: now - job.end, polls: job.polls });
      if (submitted < jobs) submit();
    } else job.nextPollAt = now + pace.nextPollMs(id, job.polls, now);
  }
  return seen;
}

describe('JobPollPace', () => {
  it('sees each job of a platform working through files in order within 250 ms of its end, with few polls', () => {
    // One processing line: every job takes a second after the one before it.
    const seen = simulate(40, 4, (submittedAt, previousEnd) => Math.max(submittedAt, previousEnd) + 1000);
    const settled = seen.slice(4);
    expect(Math.max(...settled.map((s) => s.late))).toBeLessThanOrEqual(250);
    expect(Math.max(...settled.map((s) => s.polls))).toBeLessThanOrEqual(15);
  });

  it('sees jobs a platform runs side by side when they end, not after the queue it does not have', () => {
    const seen = simulate(40, 4, (submittedAt) => submittedAt + 300);
    const settled = seen.slice(4);
    expect(Math.max(...settled.map((s) => s.late))).toBeLessThanOrEqual(50);
  });

  it('polls a job it knows nothing about soon, then at most a second apart', () => {
    const pace = new JobPollPace();
    expect([0, 1, 2, 3, 10].map((polls) => pace.nextPollMs(99, polls, 0))).toEqual([25, 50, 100, 200, 1000]);
  });
});
