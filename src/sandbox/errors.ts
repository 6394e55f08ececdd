/**
 * Failures a route raises, each carrying the exact §7 body (management-api.md) it is answered with.
 * Error bodies are `application/json`.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message ?? body.error_description ?? body.error));
  }
}

const timestamp = () => new Date().toISOString();

/** 400: malformed or invalid request. `detail` says which field and what was expected. */
export function clientError(detail?: string): HttpError {
  return new HttpError(400, {
    error: 'ClientError',
    message: detail ? `a client error occurred: ${detail}` : 'a client error occurred',
    timestamp: timestamp(),
  });
}

export function notFound(): HttpError {
  return new HttpError(404, { error: 'ResourceNotFoundError', message: 'resource not found', timestamp: timestamp() });
}

export function unauthorized(): HttpError {
  return new HttpError(401, { error: 'unauthorized', error_description: 'full authentication is required' });
}

export function forbidden(): HttpError {
  return new HttpError(403, { error: 'access_denied', error_description: 'access is denied' });
}

/** Statuses the description gives no body for (405, 413, 5xx, 429): the API-error shape, named by status. */
export function statusError(status: number, message: string, headers: Record<string, string> = {}): HttpError {
  const error =
    status === 429 ? 'TooManyRequests' : status === 503 ? 'ServiceUnavailable' : status >= 500 ? 'ServerError' : 'ClientError';
  return new HttpError(status, { error, message, timestamp: timestamp() }, headers);
}
