import { ChatportError } from '../../shared/errors.js';

/** Where a failed call went: kept on every API error so a message can say what failed, and where. */
export interface RequestSite {
  /** What chatport was doing, in words, e.g. `get job 42`. */
  operation: string;
  method: string;
  /** Path (no query string: queries may carry filters users consider private). */
  path: string;
}

/** Fields read from a §7 error body (management-api.md); absent when the body had none. */
export interface ErrorBodyFacts {
  /** `error` of the body: `ClientError`, `unauthorized`, ... */
  error?: string;
  /** `message` (API errors) or `error_description` (authentication errors). */
  description?: string;
  timestamp?: string;
}

export interface ApiErrorInit extends RequestSite, ErrorBodyFacts {
  code: string;
  transient: boolean;
  /** HTTP status; absent when no response arrived (network, timeout). */
  status?: number;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * Base of every failure of a call to the Management API. Carries the status, the body's `error` and
 * description, the server's timestamp, and the method and path, besides ChatportError's code and mark.
 */
export class ApiError extends ChatportError {
  readonly status: number | undefined;
  readonly error: string | undefined;
  readonly description: string | undefined;
  readonly timestamp: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly operation: string;

  constructor(message: string, init: ApiErrorInit) {
    super(message, {
      code: init.code,
      transient: init.transient,
      cause: init.cause,
      details: {
        operation: init.operation,
        method: init.method,
        path: init.path,
        ...(init.status === undefined ? {} : { status: init.status }),
        ...(init.error === undefined ? {} : { error: init.error }),
        ...(init.description === undefined ? {} : { description: init.description }),
        ...(init.timestamp === undefined ? {} : { timestamp: init.timestamp }),
        ...init.details,
      },
    });
    this.status = init.status;
    this.error = init.error;
    this.description = init.description;
    this.timestamp = init.timestamp;
    this.method = init.method;
    this.path = init.path;
    this.operation = init.operation;
  }
}

type Init = Omit<ApiErrorInit, 'code' | 'transient'>;

/** 401: no valid credential. Terminal: the same credential will be refused again. */
export class UnauthorizedError extends ApiError {
  constructor(message: string, init: Init) {
    super(message, { ...init, code: 'API_UNAUTHORIZED', transient: false });
  }
}

/** 403: a valid credential without the scope the operation needs. */
export class ForbiddenError extends ApiError {
  /** Scopes the operation needs (management-api.md §4), when known. */
  readonly requiredScopes: readonly string[];
  constructor(message: string, init: Init & { requiredScopes: readonly string[] }) {
    super(message, { ...init, code: 'API_FORBIDDEN', transient: false, details: { ...init.details, requiredScopes: init.requiredScopes } });
    this.requiredScopes = init.requiredScopes;
  }
}

export class NotFoundError extends ApiError {
  constructor(message: string, init: Init) {
    super(message, { ...init, code: 'API_NOT_FOUND', transient: false });
  }
}

/** 429 that outlasted the retry budget. Transient: the same call will succeed later. */
export class RateLimitedError extends ApiError {
  /** What the server's Retry-After asked for, in ms; absent when it sent none. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, init: Init & { retryAfterMs?: number }) {
    super(message, {
      ...init,
      code: 'API_RATE_LIMITED',
      transient: true,
      details: { ...init.details, ...(init.retryAfterMs === undefined ? {} : { retryAfterMs: init.retryAfterMs }) },
    });
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** 5xx. Transient. */
export class ServerError extends ApiError {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, init: Init & { retryAfterMs?: number }) {
    super(message, { ...init, code: 'API_SERVER', transient: true });
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Any other 4xx (400 ClientError, 409, 413, 416, ...): a request chatport should not have sent. */
export class ClientRequestError extends ApiError {
  constructor(message: string, init: Init, code = 'API_CLIENT_ERROR') {
    super(message, { ...init, code, transient: false });
  }
}

/**
 * 405: the server does not take this method at this path, which the Management API does. Client and server
 * disagree on the API (another service, another revision), not a chatport bug: API_METHOD_NOT_ALLOWED
 * (exit 69, like a server that does not speak the Management API).
 */
export class MethodNotAllowedError extends ClientRequestError {
  constructor(message: string, init: Init) {
    super(message, init, 'API_METHOD_NOT_ALLOWED');
  }
}

/**
 * No response: refused or dropped connection, DNS failure, reset. `reachedServer` is false only when
 * the connection was never made, so a non-idempotent request can be repeated safely.
 */
export class NetworkError extends ApiError {
  readonly reachedServer: boolean;
  constructor(message: string, init: Init & { reachedServer: boolean }) {
    super(message, { ...init, code: 'API_NETWORK', transient: true, details: { ...init.details, reachedServer: init.reachedServer } });
    this.reachedServer = init.reachedServer;
  }
}

/** Connect, header or body timeout. */
export class TimeoutError extends ApiError {
  readonly phase: 'connect' | 'headers' | 'body';
  constructor(message: string, init: Init & { phase: 'connect' | 'headers' | 'body' }) {
    super(message, { ...init, code: 'API_TIMEOUT', transient: true, details: { ...init.details, phase: init.phase } });
    this.phase = init.phase;
  }
}

/**
 * The request succeeded but the response is not what the API description promises. Kept apart from
 * request failures (ky's SchemaValidationError): retrying will not help, the platform changed.
 */
export class ResponseSchemaError extends ApiError {
  readonly issues: ReadonlyArray<{ path: string; message: string }>;
  constructor(message: string, init: Init & { issues: ReadonlyArray<{ path: string; message: string }> }) {
    super(message, { ...init, code: 'API_RESPONSE_INVALID', transient: false, details: { ...init.details, issues: init.issues } });
    this.issues = init.issues;
  }
}

/** Redirects that cannot be followed: too many hops, or a Location that is not http(s). */
export class RedirectError extends ApiError {
  constructor(message: string, init: Init) {
    super(message, { ...init, code: 'API_REDIRECT', transient: false });
  }
}
