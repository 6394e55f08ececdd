import type { Now, Sleep } from '../../shared/async.js';
import type { ResponseHeaders } from '../http/types.js';
import type { RateLimitGate } from './gate.js';
import { RoutePacer, type PaceTicket } from './pacer.js';
import { parseRateLimitHeaders } from './rate-limit-headers.js';

export interface RouteTicket extends PaceTicket {
  route: string;
}

/**
 * When each request of a client may go: after the client-wide gate opens (a Retry-After in force) and
 * at its route's learned pace. One per client.
 */
export class Pacing {
  private readonly routes = new Map<string, RoutePacer>();

  /** `shares`: clients sharing the platform's limit (the shards of a run; RoutePacer). */
  constructor(
    readonly gate: RateLimitGate,
    private readonly deps: { now: Now; sleep: Sleep },
    private readonly shares = 1,
  ) {}

  /**
   * Resolves when the request may be sent. Loops because the gate may close, or another request take
   * the slot, while this one sleeps.
   */
  async waitTurn(route: string, signal?: AbortSignal): Promise<RouteTicket> {
    const pacer = this.pacerOf(route);
    let waited = false;
    for (;;) {
      const now = this.deps.now();
      const at = Math.max(this.gate.openAtMs, pacer.nextAtMs);
      if (at <= now) return { route, ...pacer.take(now, waited) };
      waited ||= pacer.nextAtMs > now;
      await this.deps.sleep(at - now, signal);
    }
  }

  /** Every answer of the route: a 429 teaches the pace, other answers count as passed. */
  observe(ticket: RouteTicket, status: number, headers: ResponseHeaders, retryAfterMs: number | undefined): void {
    const pacer = this.pacerOf(ticket.route);
    const now = this.deps.now();
    if (status === 429) pacer.limited(ticket, now, retryAfterMs ?? 0);
    else if (status < 500) pacer.passed(ticket, now, parseRateLimitHeaders(headers, now));
  }

  /** Requests per second of every paced route (for reports and logs). */
  describe(): Record<string, number> {
    const paced: Record<string, number> = {};
    for (const [route, pacer] of this.routes) if (pacer.intervalMs > 0) paced[route] = Math.round((100_000 / pacer.intervalMs)) / 100;
    return paced;
  }

  private pacerOf(route: string): RoutePacer {
    let pacer = this.routes.get(route);
    if (!pacer) this.routes.set(route, (pacer = new RoutePacer(undefined, this.shares)));
    return pacer;
  }
}
