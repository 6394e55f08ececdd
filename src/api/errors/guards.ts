import {
  ApiError,
  ClientRequestError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ResponseSchemaError,
  RedirectError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from './api-error.js';
import { JobDeadlineError, JobFailedError } from './job-errors.js';

/**
 * Type guards that match by class or, when two copies of chatport are loaded (a library user bundling
 * its own), by `name` and `code` (ky's `isHTTPError` habit).
 */
function guard<T extends Error>(cls: abstract new (...args: never[]) => T, code: string): (value: unknown) => value is T {
  return (value: unknown): value is T =>
    value instanceof cls ||
    (value instanceof Error && value.name === cls.name && (value as { code?: unknown }).code === code);
}

export function isApiError(value: unknown): value is ApiError {
  return (
    value instanceof ApiError ||
    (value instanceof Error && /^API_/.test(String((value as { code?: unknown }).code)) && 'method' in value)
  );
}
export const isUnauthorizedError = guard(UnauthorizedError, 'API_UNAUTHORIZED');
export const isForbiddenError = guard(ForbiddenError, 'API_FORBIDDEN');
export const isNotFoundError = guard(NotFoundError, 'API_NOT_FOUND');
export const isRateLimitedError = guard(RateLimitedError, 'API_RATE_LIMITED');
export const isServerError = guard(ServerError, 'API_SERVER');
export const isClientRequestError = guard(ClientRequestError, 'API_CLIENT_ERROR');
export const isNetworkError = guard(NetworkError, 'API_NETWORK');
export const isTimeoutError = guard(TimeoutError, 'API_TIMEOUT');
export const isResponseSchemaError = guard(ResponseSchemaError, 'API_RESPONSE_INVALID');
export const isRedirectError = guard(RedirectError, 'API_REDIRECT');
export const isJobDeadlineError = guard(JobDeadlineError, 'JOB_DEADLINE_EXCEEDED');
export const isJobFailedError = guard(JobFailedError, 'JOB_FAILED');
