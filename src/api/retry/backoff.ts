/**
 * Exponential backoff with full jitter (AWS architecture blog, "Exponential Backoff and Jitter"):
 * uniform in [0, min(max, base · 2^(retry-1))). Pure: `random` is injected.
 * `retry` is 1 for the first retry.
 */
export function computeBackoffMs(retry: number, policy: { baseDelayMs: number; maxDelayMs: number }, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}
