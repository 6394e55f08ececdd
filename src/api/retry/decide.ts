import type { ApiError } from '../errors/api-error.js';
import { isApiError, isNetworkError, isRateLimitedError, isServerError, isTimeoutError } from '../errors/guards.js';

/**
 * Which failures a call may repeat (decisions.md "Wire", the retry rules):
 * - `idempotent`: GET, HEAD, PUT, DELETE, the token request, and imports (every item carries an
 *   idempotency key, so a repeated upload never duplicates data): 429, 5xx, network errors, timeouts.
 * - `unsent-only`: analytics export POSTs. Only when the request never reached the server
 *   (connection refused, DNS, connect timeout): a repeat could start a second export.
 * - `never`: every other non-idempotent request.
 */
export type RetryMode = 'idempotent' | 'unsent-only' | 'never';

export function isRetryable(error: unknown, mode: RetryMode): error is ApiError {
  if (!isApiError(error) || mode === 'never') return false;
  if (mode === 'unsent-only') return isNetworkError(error) ? !error.reachedServer : isTimeoutError(error) && error.phase === 'connect';
  return isRateLimitedError(error) || isServerError(error) || isNetworkError(error) || isTimeoutError(error);
}
