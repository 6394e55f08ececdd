import type { ApiError } from '../errors/api-error.js';

/**
 * The error a call ends with once its retries are spent: the message and details say how many attempts
 * were made and how long they took, so "unavailable after all retries" (exit 69) can be checked.
 */
export function markRetriesExhausted(error: ApiError, attempts: number, elapsedMs: number): ApiError {
  error.details.attempts = attempts;
  error.details.elapsedMs = elapsedMs;
  if (attempts > 1) error.message = `${error.message} (gave up after ${attempts} attempts in ${(elapsedMs / 1000).toFixed(1)} s)`;
  return error;
}
