import { ErrorBody } from '../../wire/errors.js';
import { scrubSecrets } from '../../shared/secrets.js';
import {
  type ApiError,
  type ErrorBodyFacts,
  type RequestSite,
  ClientRequestError,
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
} from './api-error.js';

export interface ErrorResponse {
  status: number;
  /** Raw body text (may be empty, may not be JSON). */
  bodyText: string;
  /** Parsed Retry-After, when the response had one. */
  retryAfterMs?: number;
}

/** Reads the §7 body leniently: a body that is not JSON still yields a useful message. */
export function parseErrorBody(bodyText: string): ErrorBodyFacts {
  if (bodyText.trim() === '') return {};
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    // Scrubbed before it is cut: a cut through a secret would leave its first part, which no scrub finds.
    return { description: scrubSecrets(bodyText).slice(0, 200) };
  }
  const parsed = ErrorBody.safeParse(json);
  if (!parsed.success) return {};
  const body = parsed.data as { error: string; message?: string; error_description?: string; timestamp?: string };
  return {
    error: body.error,
    ...(body.message ?? body.error_description ? { description: scrubSecrets(body.message ?? body.error_description ?? '') } : {}),
    ...(body.timestamp ? { timestamp: body.timestamp } : {}),
  };
}

/** RFC 6749 §5.2 error codes by which a token endpoint refuses a client's credentials or grant. */
const OAUTH_REFUSALS = new Set(['invalid_client', 'invalid_grant', 'unauthorized_client', 'invalid_scope', 'unsupported_grant_type']);

/**
 * A token endpoint answers refused credentials with 400 and an OAuth error code (RFC 6749 §5.2; Cognito
 * and Entra ID do so for a wrong secret): the operator's credentials, not a chatport bug.
 */
function isOAuthRefusal(status: number, facts: ErrorBodyFacts): boolean {
  return status === 400 && facts.error !== undefined && OAUTH_REFUSALS.has(facts.error);
}

/**
 * The one factory from an HTTP status to an error class (openai-node's `APIError.generate`).
 * `requiredScopes` are the scopes of the operation (management-api.md §4), named in a 403's message.
 */
export function createApiError(site: RequestSite, response: ErrorResponse, requiredScopes: readonly string[] = []): ApiError {
  const facts = parseErrorBody(response.bodyText);
  const { status } = response;
  const init = { ...site, ...facts, status };
  // `chatport api` names its operation by the request itself: said once, not twice.
  const request = `${site.method} ${site.path}`;
  const where = site.operation === request ? request : `${site.operation} (${request})`;
  const said = facts.error || facts.description ? `: ${[facts.error, facts.description].filter(Boolean).join(' — ')}` : '';

  if (status === 401 || isOAuthRefusal(status, facts))
    return new UnauthorizedError(
      `${where} was refused with ${status}${said}. The credentials are missing, wrong or expired: check CHATPORT_CLIENT_ID and CHATPORT_CLIENT_SECRET (or CHATPORT_ACCESS_TOKEN) and the token URL`,
      init,
    );
  if (status === 403) {
    const scopes = requiredScopes.length
      ? `the token lacks a scope this operation needs (${requiredScopes.join(', ')}); grant ${requiredScopes.length > 1 ? 'them' : 'it'} to the application's client credentials`
      : 'the token lacks a scope this operation needs';
    return new ForbiddenError(`${where} was refused with 403${said}: ${scopes}`, { ...init, requiredScopes });
  }
  if (status === 404) return new NotFoundError(`${where} found nothing (404)${said}; check the id or name, and the API URL and path prefix`, init);
  if (status === 429) {
    const wait = response.retryAfterMs === undefined ? '' : ` (the server asked to wait ${Math.ceil(response.retryAfterMs / 1000)} s)`;
    return new RateLimitedError(`${where} was rate limited (429)${wait} beyond what the retry policy waits out; run again later or lower concurrency`, {
      ...init,
      ...(response.retryAfterMs === undefined ? {} : { retryAfterMs: response.retryAfterMs }),
    });
  }
  if (status >= 500)
    return new ServerError(`${where} failed on the server with ${status}${said}; the platform may be down, try again later`, {
      ...init,
      ...(response.retryAfterMs === undefined ? {} : { retryAfterMs: response.retryAfterMs }),
    });
  if (status === 405)
    return new MethodNotAllowedError(
      `${where} was refused with 405${said}: the server does not take ${site.method} there; check that --api-url names the Management API (and the path prefix), or the platform runs a revision chatport does not support`,
      init,
    );
  return new ClientRequestError(
    `${where} was rejected with ${status}${said}; the platform may run a revision chatport does not support, or this is a chatport bug worth reporting`,
    init,
  );
}
