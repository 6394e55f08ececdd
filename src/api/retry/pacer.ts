import type { RateLimitHint } from './rate-limit-headers.js';

/** What a request took from its route's pacer: when it went, and at what pace. */
export interface PaceTicket {
  sentAt: number;
  /** The route's interval when the request was sent (0: not paced). */
  intervalMs: number;
  /** True when the request waited for its slot: only such requests test the pace. */
  paced: boolean;
}

/** Successes in a row at one pace before the pace is tried a step faster. */
const PROBE_EVERY = 10;
/** A step faster while no too-fast pace is known. */
const PROBE_STEP = 0.03;
/** A pace this close (relative) above the known too-fast one is not probed further. */
const CLOSE_ENOUGH = 0.01;
/** Calm rounds after which a too-fast pace is forgotten (the limit may have been raised). */
const FORGET_AFTER_ROUNDS = 20;
/** Calm rounds without a known bound after which the probing step doubles each round (recovery). */
const FREE_ROUNDS_BEFORE_SPEEDUP = 3;
/** The largest probing step. */
const MAX_PROBE_STEP = 0.5;

/**
 * The pace of one route class (e.g. `POST /imports/messages`), learned from the platform's answers.
 *
 * A first 429 only pauses (the client-wide gate): one 429 may be a passing fault, and pacing on it would
 * slow the route for nothing. A second one, for a request sent after the first window opened, shows a
 * rate: the interval is the time from that opening to the end of the new wait (counted from when the
 * limited request was sent), over the requests the platform let through in between (`rate:1/1s` → 1 s,
 * `rate:100/60s` → 0.6 s). From then on each request goes one interval after the previous one, and after
 * PROBE_EVERY paced successes the interval is tried a step shorter (the step doubles after a few calm
 * rounds, so a route slowed by chance recovers); a 429 on a shorter interval goes back to the last good
 * one and remembers the too-fast one, so probing closes in on the limit and then stops until the bound is
 * forgotten. A 429 at a pace that was good backs off a little (more when it repeats within a round: the
 * limit tightened). Answers to requests sent before the last lesson teach nothing: they were on the wire
 * when it was learned.
 *
 * `RateLimit-*` / `X-RateLimit-*` headers, when sent, are obeyed directly: with nothing remaining, the
 * route's next request waits until the window resets.
 */
export class RoutePacer {
  intervalMs = 0;
  nextAtMs = 0;
  private lastGoodMs = 0;
  private tooFastMs = 0;
  private calm = 0;
  private calmRounds = 0;
  private lessonAt = -Infinity;
  /** When the last lesson's wait ended, and the successes sent since. */
  private opensAt: number | undefined;
  private passesSinceOpen = 0;
  private freeRounds = 0;
  /** A 429 was met since the last calm round. */
  private limitedThisRound = false;

  /**
   * `shares`: how many clients share the platform's limit (the shards of a run). Each probes for a faster
   * pace that many times less often, so that together they probe as one client would, and a 429 that one
   * shard's probe draws does not come once for every shard.
   */
  constructor(private readonly probeEvery = PROBE_EVERY, shares = 1) {
    this.probeEvery = probeEvery * Math.max(1, shares);
  }

  take(now: number, waited: boolean): PaceTicket {
    const ticket = { sentAt: now, intervalMs: this.intervalMs, paced: waited && this.intervalMs > 0 };
    // From the actual send, not the planned slot: a platform's window starts when a request arrives, so a
    // request that went late must not pull the next one closer to it.
    if (this.intervalMs > 0) this.nextAtMs = Math.max(this.nextAtMs, now + this.intervalMs);
    return ticket;
  }

  passed(ticket: PaceTicket, now: number, hint?: RateLimitHint): void {
    if (this.opensAt !== undefined && ticket.sentAt >= this.opensAt) this.passesSinceOpen++;
    if (hint && hint.remaining === 0) this.nextAtMs = Math.max(this.nextAtMs, now + hint.resetMs);
    if (!ticket.paced || ticket.sentAt < this.lessonAt || ++this.calm < this.probeEvery) return;
    this.calm = 0;
    this.calmRounds++;
    this.limitedThisRound = false;
    this.lastGoodMs = this.intervalMs;
    if (this.tooFastMs > 0 && this.calmRounds >= FORGET_AFTER_ROUNDS) this.tooFastMs = 0;
    this.probe();
  }

  limited(ticket: PaceTicket, now: number, retryAfterMs: number): void {
    if (ticket.sentAt < this.lessonAt) return;
    const passes = this.passesSinceOpen;
    this.lessonAt = now;
    this.calm = 0;
    this.freeRounds = 0;
    const opensAt = this.opensAt;
    this.opensAt = now + retryAfterMs;
    this.passesSinceOpen = 0;
    if (this.intervalMs === 0) {
      // The first lesson after a wait: the platform let `passes` through from the opening until this
      // request arrived (about when it was sent; its answer may come later, after its body), and then
      // asked it to wait `retryAfterMs`. Learning the pace is not a sign that it must slow down further.
      if (opensAt !== undefined) this.intervalMs = this.lastGoodMs = Math.max(1, (ticket.sentAt + retryAfterMs - opensAt) / Math.max(1, passes));
      this.calmRounds = 0;
      return;
    }
    if (ticket.intervalMs < this.lastGoodMs) {
      this.tooFastMs = Math.max(this.tooFastMs, ticket.intervalMs);
      this.intervalMs = this.lastGoodMs;
    } else {
      // A good pace drew a 429: a window edge met jitter (step back a little), or, twice within a round,
      // the limit tightened (step back more; every 429 costs its wait, so small steps add up quickly).
      this.tooFastMs = ticket.intervalMs;
      this.intervalMs = this.lastGoodMs = Math.max(this.intervalMs, ticket.intervalMs * (this.limitedThisRound ? 1.05 : 1.02));
    }
    this.limitedThisRound = true;
    this.calmRounds = 0;
  }

  private probe(): void {
    const floor = this.tooFastMs * (1 + CLOSE_ENOUGH);
    let next: number;
    if (this.tooFastMs > 0) next = (this.intervalMs + floor) / 2;
    else next = this.intervalMs * (1 - Math.min(MAX_PROBE_STEP, PROBE_STEP * 2 ** Math.max(0, ++this.freeRounds - FREE_ROUNDS_BEFORE_SPEEDUP)));
    if (next < floor || this.intervalMs - next < this.intervalMs * 0.002) return;
    // Below a millisecond pacing means nothing: the limit is gone.
    this.intervalMs = next < 1 ? 0 : next;
  }
}

/**
 * Route classes: the method and path, numbers replaced, and the origin when it is not the API's
 * (`POST /imports/messages`, `GET /jobs/{id}`, `POST http://auth/oauth/token`).
 */
export function routeClassOf(method: string, url: URL, apiOrigin: string): string {
  const path = url.pathname.replace(/\/\d+(?=\/|$)/g, '/{id}');
  return `${method} ${url.origin === apiOrigin ? '' : url.origin}${path}`;
}
