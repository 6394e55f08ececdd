/**
 * `Retry-After` (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date. Pure: the caller gives the
 * current time. Returns the wait in ms (never negative), or undefined when the header is absent or
 * unreadable, in which case the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // Date.parse reads IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") and the obsolete RFC 850/asctime forms.
  // Guard against bare numbers with signs or decimals, which Date.parse would also accept as years.
  if (!/[a-z]/i.test(raw)) return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
