/** How hard a client retries. Normalised once in `createClient`; named policies below. */
export interface RetryPolicy {
  /** Name shown in logs. */
  name: string;
  /** Attempts per call for failures other than rate limiting (the first try counts). */
  maxAttempts: number;
  /**
   * Rate-limited answers (429) tolerated per call. Counted apart from `maxAttempts`: a long migration
   * meets many 429s that the server itself says to wait out, and waiting them out is the right thing.
   */
  maxRateLimitedRetries: number;
  /** First backoff ceiling; doubles each attempt (full jitter picks uniformly below it). */
  baseDelayMs: number;
  /** Largest backoff ceiling. */
  maxDelayMs: number;
  /** Total time one call may spend, waits included; a Retry-After beyond it ends the call at once. */
  maxTotalMs: number;
}

/**
 * Named policies (slack's `retry-policies.ts`). `default`: 5 attempts with 0.5 s → 30 s full-jitter
 * backoff, 50 rate-limit waits, 15 minutes per call. `rapid`: the same shape with millisecond delays,
 * for tests (Retry-After is still honoured: that is the server's instruction, not ours). `none`: one try.
 */
export const RETRY_POLICIES = {
  default: { name: 'default', maxAttempts: 5, maxRateLimitedRetries: 50, baseDelayMs: 500, maxDelayMs: 30_000, maxTotalMs: 15 * 60_000 },
  rapid: { name: 'rapid', maxAttempts: 5, maxRateLimitedRetries: 20, baseDelayMs: 5, maxDelayMs: 40, maxTotalMs: 30_000 },
  none: { name: 'none', maxAttempts: 1, maxRateLimitedRetries: 0, baseDelayMs: 0, maxDelayMs: 0, maxTotalMs: 60_000 },
} as const satisfies Record<string, RetryPolicy>;

export type RetryPolicyName = keyof typeof RETRY_POLICIES;

export function resolveRetryPolicy(policy: RetryPolicyName | Partial<RetryPolicy> | undefined): RetryPolicy {
  if (policy === undefined) return RETRY_POLICIES.default;
  if (typeof policy === 'string') return RETRY_POLICIES[policy];
  return { ...RETRY_POLICIES.default, name: 'custom', ...policy };
}
