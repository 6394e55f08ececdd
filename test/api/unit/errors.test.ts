import { describe, expect, it } from 'vitest';
import {
  type ApiError,
  ClientRequestError,
  MethodNotAllowedError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  createApiError,
  isApiError,
  isForbiddenError,
  isRateLimitedError,
} from '../../../src/api/errors/index.js';
import { JobDeadlineError } from '../../../src/api/errors/job-errors.js';
import { isRetryable } from '../../../src/api/retry/decide.js';
import { NetworkError, TimeoutError } from '../../../src/api/errors/api-error.js';
import { ExitCode, exitCodeFor } from '../../../src/shared/exit-codes.js';
import { registerSecret } from '../../../src/shared/secrets.js';

const site = { operation: 'get job 42', method: 'GET', path: '/jobs/42' };

describe('createApiError', () => {
  it('maps each status to its class, code, mark and exit code', () => {
    const cases: Array<[number, new (...a: never[]) => ApiError, string, boolean, number]> = [
      [401, UnauthorizedError, 'API_UNAUTHORIZED', false, ExitCode.AUTH],
      [403, ForbiddenError, 'API_FORBIDDEN', false, ExitCode.AUTH],
      [404, NotFoundError, 'API_NOT_FOUND', false, ExitCode.INPUT_MISSING],
      [429, RateLimitedError, 'API_RATE_LIMITED', true, ExitCode.TEMPORARY],
      [500, ServerError, 'API_SERVER', true, ExitCode.UNAVAILABLE],
      [503, ServerError, 'API_SERVER', true, ExitCode.UNAVAILABLE],
      [400, ClientRequestError, 'API_CLIENT_ERROR', false, ExitCode.INTERNAL],
      // A server refusing the method at a path the API defines: it does not speak this API (not a bug).
      [405, MethodNotAllowedError, 'API_METHOD_NOT_ALLOWED', false, ExitCode.UNAVAILABLE],
    ];
    for (const [status, cls, code, transient, exit] of cases) {
      const error = createApiError(site, { status, bodyText: '' });
      expect(error, String(status)).toBeInstanceOf(cls);
      expect(error).toMatchObject({ code, transient, status, method: 'GET', path: '/jobs/42' });
      expect(exitCodeFor(error)).toBe(exit);
    }
  });

  it('keeps the §7 API error body: error, message, timestamp', () => {
    const error = createApiError(site, {
      status: 404,
      bodyText: JSON.stringify({ error: 'ResourceNotFoundError', message: 'resource not found', timestamp: '2026-11-22T12:00:00Z' }),
    });
    expect(error).toMatchObject({ error: 'ResourceNotFoundError', description: 'resource not found', timestamp: '2026-11-22T12:00:00Z' });
    expect(error.message).toContain('get job 42 (GET /jobs/42)');
    expect(error.message).toContain('resource not found');
  });

  it('reads the authentication error body (error_description) and names the missing scope on 403', () => {
    const error = createApiError(site, { status: 403, bodyText: JSON.stringify({ error: 'access_denied', error_description: 'access is denied' }) }, ['read:job']);
    expect(isForbiddenError(error)).toBe(true);
    expect(error).toMatchObject({ error: 'access_denied', description: 'access is denied', requiredScopes: ['read:job'] });
    expect(error.message).toMatch(/read:job/);
  });

  it('survives a body that is not JSON', () => {
    const error = createApiError(site, { status: 502, bodyText: '<html>Bad Gateway</html>' });
    expect(error.description).toBe('<html>Bad Gateway</html>');
    expect(error.message).toContain('502');
  });

  it('carries Retry-After on rate limiting', () => {
    const error = createApiError(site, { status: 429, bodyText: '', retryAfterMs: 3000 });
    expect(isRateLimitedError(error) && error.retryAfterMs).toBe(3000);
    expect(error.message).toContain('3 s');
  });
});

describe('an error body that echoes a secret', () => {
  it('keeps no part of it where the body is cut (a proxy page echoing the request)', () => {
    const secret = 'cs-4f1d9a7b2e8c6d0f5a3b9e1c7d2f8a4b';
    registerSecret(secret);
    // Not JSON: the body's first 200 characters become the description; the secret straddles the cut.
    for (const before of [170, 185, 196]) {
      const error = createApiError(site, { status: 502, bodyText: `${'x'.repeat(before)} client_secret=${secret} Authorization: Bearer ${secret}` });
      expect(error.message, String(before)).not.toContain(secret.slice(0, 4));
    }
  });
});

describe('type guards', () => {
  it('match by name and code across module copies', () => {
    const foreign = Object.assign(new Error('x'), { name: 'ForbiddenError', code: 'API_FORBIDDEN', transient: false, method: 'GET' });
    expect(isForbiddenError(foreign)).toBe(true);
    expect(isApiError(foreign)).toBe(true);
    expect(isRateLimitedError(foreign)).toBe(false);
    expect(isApiError(new Error('plain'))).toBe(false);
  });
});

describe('JobDeadlineError', () => {
  it('names the job and maps to the temporary exit code', () => {
    const error = new JobDeadlineError(42, { type: 'USER_IMPORT', state: 'RUNNING', waitedMs: 61_000 });
    expect(error.code).toBe('JOB_DEADLINE_EXCEEDED');
    expect(error.message).toContain('job 42');
    expect(exitCodeFor(error)).toBe(ExitCode.TEMPORARY);
  });
});

describe('isRetryable', () => {
  const network = (reachedServer: boolean) => new NetworkError('x', { ...site, reachedServer });
  it('repeats idempotent calls on 429, 5xx, network errors and timeouts, never on other 4xx', () => {
    expect(isRetryable(createApiError(site, { status: 429, bodyText: '' }), 'idempotent')).toBe(true);
    expect(isRetryable(createApiError(site, { status: 500, bodyText: '' }), 'idempotent')).toBe(true);
    expect(isRetryable(network(true), 'idempotent')).toBe(true);
    expect(isRetryable(new TimeoutError('x', { ...site, phase: 'headers' }), 'idempotent')).toBe(true);
    expect(isRetryable(createApiError(site, { status: 400, bodyText: '' }), 'idempotent')).toBe(false);
    expect(isRetryable(createApiError(site, { status: 403, bodyText: '' }), 'idempotent')).toBe(false);
  });

  it('repeats nothing in mode never', () => {
    expect(isRetryable(network(false), 'never')).toBe(false);
    expect(isRetryable(createApiError(site, { status: 503, bodyText: '' }), 'never')).toBe(false);
  });
});
