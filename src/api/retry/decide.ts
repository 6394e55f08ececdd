import type { ApiError } from '../errors/api-error.js';
import { isApiError, isNetworkError, isRateLimitedError, isServerError, isTimeoutError } from '../errors/guards.js';

/**
 * Which failures a call may repeat (decisions.md "Wire", the retry rules). The resource that
 * builds a call sets its mode, because only it knows whether a repeat is safe:
 * - `idempotent`: GET, HEAD, PUT, DELETE, the token request, imports (every item carries an
 *   idempotency key, so a repeated upload never duplicates data) and analytics export starts (a second
 *   export job is harmless: the caller uses the one whose answer arrived): 429, 5xx, network errors,
 *   timeouts.
 * - `unprocessed`: a request that must not be repeated blindly (a reply thread message has no idempotency
 *   key) but may be when the platform says it did not take it: 429 only. Other failures leave the outcome
 *   unknown; the caller looks before sending again.
 * - `never`: every other non-idempotent request.
 */
export type RetryMode = 'idempotent' | 'unprocessed' | 'never';

export function isRetryable(error: unknown, mode: RetryMode): error is ApiError {
  if (!isApiError(error) || mode === 'never') return false;
  if (mode === 'unprocessed') return isRateLimitedError(error);
  return isRateLimitedError(error) || isServerError(error) || isNetworkError(error) || isTimeoutError(error);
}
