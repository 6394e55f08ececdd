import type { ResponseHeaders } from '../http/types.js';

/** What an answer's rate-limit headers say about the current window, when it sends them. */
export interface RateLimitHint {
  /** Requests left in the current window. */
  remaining: number;
  /** Time until the window resets, ms. */
  resetMs: number;
}

/**
 * Reads the rate-limit headers servers send in practice (pure; the caller gives the time):
 * - `RateLimit: "name";r=0;t=5` (IETF httpapi draft 08 and later: r remaining, t seconds to reset);
 * - `RateLimit: limit=10, remaining=0, reset=5` (drafts up to 07);
 * - `RateLimit-Remaining` + `RateLimit-Reset` (seconds), and `X-RateLimit-Remaining` + `X-RateLimit-Reset`,
 *   whose reset is seconds, or a Unix time in seconds when it is that large (GitHub, Twitter).
 * Returns undefined when no pair of remaining and reset can be read.
 */
export function parseRateLimitHeaders(headers: ResponseHeaders, nowMs: number): RateLimitHint | undefined {
  const combined = first(headers.ratelimit);
  if (combined) {
    const remaining = param(combined, /(?:^|[;,\s])(?:r|remaining)=(\d+)/i);
    const reset = param(combined, /(?:^|[;,\s])(?:t|reset)=(\d+)/i);
    if (remaining !== undefined && reset !== undefined) return { remaining, resetMs: reset * 1000 };
  }
  for (const prefix of ['ratelimit-', 'x-ratelimit-']) {
    const remaining = wholeNumber(first(headers[`${prefix}remaining`]));
    const reset = wholeNumber(first(headers[`${prefix}reset`]));
    if (remaining === undefined || reset === undefined) continue;
    // A reset beyond a year of seconds is a Unix time, not a delay.
    const resetMs = reset > 365 * 24 * 3600 ? Math.max(0, reset * 1000 - nowMs) : reset * 1000;
    return { remaining, resetMs };
  }
  return undefined;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function wholeNumber(raw: string | undefined): number | undefined {
  const text = raw?.trim();
  return text && /^\d+$/.test(text) ? Number(text) : undefined;
}

function param(text: string, pattern: RegExp): number | undefined {
  const m = pattern.exec(text);
  return m ? Number(m[1]) : undefined;
}
