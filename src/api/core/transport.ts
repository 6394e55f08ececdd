import type { z } from 'zod';
import type { Now, Sleep } from '../../shared/async.js';
import type { Logger } from '../../shared/logger.js';
import { ACCEPT_HEADER, HEADER } from '../../wire/media.js';
import type { TokenProvider } from '../auth/provider.js';
import { type ApiError, type RequestSite, ResponseSchemaError } from '../errors/api-error.js';
import { createApiError } from '../errors/factory.js';
import { isRateLimitedError, isServerError, isUnauthorizedError } from '../errors/guards.js';
import type { RequestBody } from '../http/body.js';
import type { Dispatcher } from '../http/dispatcher.js';
import { sendFollowingRedirects } from '../http/redirects.js';
import { sendOnce } from '../http/send.js';
import { headerValue, type HttpMethod, type HttpResponse } from '../http/types.js';
import { computeBackoffMs } from '../retry/backoff.js';
import { isRetryable, type RetryMode } from '../retry/decide.js';
import { markRetriesExhausted } from '../retry/exhausted.js';
import { routeClassOf } from '../retry/pacer.js';
import type { Pacing, RouteTicket } from '../retry/pacing.js';
import type { RetryPolicy } from '../retry/policies.js';
import { parseRetryAfter } from '../retry/retry-after.js';
import { buildApiUrl, appendQuery, shownPath, type Query } from './url.js';
import { parseJsonExact } from '../../shared/lossless-json.js';
import { safeParseFast } from '../../wire/fast-check.js';

/** One call of the API, as resources describe it. */
export interface CallSpec {
  /** In words, for messages: `get job 42`. */
  operation: string;
  method: HttpMethod;
  /** A path under the API root (the prefix is added), or `url`: an absolute address from a link. */
  path?: string;
  url?: URL;
  query?: Query;
  body?: RequestBody;
  headers?: Record<string, string>;
  /** Scopes the operation needs (management-api.md §4), named when the server answers 403. */
  scopes?: readonly string[];
  /** Which failures may be repeated; see RetryMode. */
  retry: RetryMode;
  /** Called before each repeat, e.g. so a caller knows an earlier attempt may have taken effect. */
  onRetry?: (info: { attempt: number; error: ApiError }) => void;
  /**
   * The address is a capability (an unguessable link that needs no token): errors and logs show only its
   * last path segment (see shownPath).
   */
  capability?: boolean;
  /** Send the bearer token; default true. It never goes to another origin than the API's. */
  authenticate?: boolean;
  signal?: AbortSignal;
}

/** Facts about the server, gathered from responses (shown in reports and by `chatport ping`). */
export interface ServerInfo {
  /** Last `x-api-version` the API origin sent. */
  apiVersion: string | undefined;
  /** 429 answers met so far (each paused the whole client). */
  rateLimited: number;
  /** Requests per second of each route class the platform's rate limit made the client pace (see Pacing). */
  pacedRoutes: Record<string, number>;
}

export interface TransportConfig {
  apiUrl: string;
  pathPrefix: string;
  maxRedirects: number;
  userAgent: string;
  policy: RetryPolicy;
}

export interface TransportDeps {
  dispatcher: Dispatcher;
  pacing: Pacing;
  sleep: Sleep;
  now: Now;
  random: () => number;
  logger: Logger;
}

/** Largest error body read into a message. */
const ERROR_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Every call goes through here: URL building, the bearer token, redirects, error mapping, retries under
 * the policy, pacing (the client-wide Retry-After gate and each route's learned rate), and the server's
 * API version.
 */
export class Transport {
  /**
   * Errors a call already gave up on. The token request runs through this same loop inside an API
   * call's attempt; without this mark the outer loop would retry it again (5 × 5 requests).
   */
  private readonly finalErrors = new WeakSet<object>();
  readonly serverInfo: ServerInfo = { apiVersion: undefined, rateLimited: 0, pacedRoutes: {} };
  readonly apiOrigin: string;
  private auth: TokenProvider | undefined;

  constructor(
    private readonly config: TransportConfig,
    private readonly deps: TransportDeps,
  ) {
    this.apiOrigin = new URL(config.apiUrl).origin;
  }

  /** Set once by createClient (the client-credentials provider itself calls the transport). */
  useAuth(auth: TokenProvider): void {
    this.auth = auth;
  }

  urlFor(path: string, query?: Query): URL {
    return buildApiUrl(this.config.apiUrl, this.config.pathPrefix, path, query);
  }

  /** Sends with retries; resolves with a 2xx response whose body the caller reads; throws ApiErrors. */
  send(spec: CallSpec): Promise<HttpResponse> {
    return this.execute(spec, async (response) => response);
  }

  /**
   * Sends and parses a JSON body with `schema`. Reading the body is part of the attempt, so a connection
   * cut mid-response is retried like any network error; a schema mismatch (ResponseSchemaError) is not.
   */
  sendJson<S extends z.ZodType>(spec: CallSpec, schema: S): Promise<z.infer<S>> {
    return this.execute(spec, (response) => this.parseJson(spec, response, schema));
  }

  private async execute<T>(spec: CallSpec, consume: (response: HttpResponse) => Promise<T>): Promise<T> {
    try {
      return await this.executeWithRetries(spec, consume);
    } catch (error) {
      if (error !== null && typeof error === 'object') this.finalErrors.add(error);
      throw error;
    }
  }

  private async executeWithRetries<T>(spec: CallSpec, consume: (response: HttpResponse) => Promise<T>): Promise<T> {
    const { policy } = this.config;
    const { now, pacing, logger } = this.deps;
    const started = now();
    const route = routeClassOf(spec.method, this.requestUrl(spec), this.apiOrigin);
    let failures = 0;
    let rateLimited = 0;
    let renewedToken = false;
    for (;;) {
      const attempt = { token: undefined as string | undefined, ticket: await pacing.waitTurn(route, spec.signal) };
      try {
        return await consume(await this.sendOnce(spec, attempt));
      } catch (error) {
        if (spec.signal?.aborted) throw spec.signal.reason ?? error;
        if (this.finalErrors.has(error as object)) throw error;
        if (isUnauthorizedError(error) && attempt.token && !renewedToken && this.auth?.invalidate(attempt.token)) {
          // Once per call: a token can expire between our clock's check and the server's.
          renewedToken = true;
          logger.info({ operation: spec.operation }, 'the API refused the access token (401); fetching a new one');
          continue;
        }
        if (!isRetryable(error, spec.retry)) throw error;
        const limited = isRateLimitedError(error);
        if (limited) {
          rateLimited += 1;
          this.serverInfo.rateLimited += 1;
        } else failures += 1;
        const retryAfterMs = limited || isServerError(error) ? error.retryAfterMs : undefined;
        if (limited) this.serverInfo.pacedRoutes = pacing.describe();
        const delayMs = retryAfterMs ?? computeBackoffMs(limited ? rateLimited : failures, policy, this.deps.random);
        const attempts = failures + rateLimited;
        error.details.attempts = attempts;
        const outOfBudget = limited ? rateLimited > policy.maxRateLimitedRetries : failures >= policy.maxAttempts;
        if (outOfBudget || now() - started + delayMs > policy.maxTotalMs) throw markRetriesExhausted(error, attempts, now() - started);
        spec.onRetry?.({ attempt: attempts, error });
        logger.warn(
          { operation: spec.operation, method: spec.method, code: error.code, status: error.status, attempt: attempts, delayMs, policy: policy.name, pacedPerSecond: this.serverInfo.pacedRoutes[route] },
          retryAfterMs !== undefined || limited ? `answered ${error.status}: pausing every request of this client` : 'request failed: retrying',
        );
        // One rule for Retry-After, whatever the status (429, 503): the whole client waits until then, and
        // this call's retry waits for the same opening (the loop's top), as does every other request.
        if (retryAfterMs !== undefined || limited) pacing.gate.pauseUntil(now() + delayMs);
        else await this.deps.sleep(delayMs, spec.signal);
      }
    }
  }

  private async parseJson<S extends z.ZodType>(spec: CallSpec, response: HttpResponse, schema: S): Promise<z.infer<S>> {
    const site = this.siteOf(spec, response.url);
    const text = await response.body.text();
    let json: unknown;
    try {
      // Ids beyond 2^53 come out as bigints, exact (src/shared/int64.ts).
      json = parseJsonExact(text, 'bigint');
    } catch (cause) {
      throw new ResponseSchemaError(`${site.operation} (${site.method} ${site.path}) answered ${response.status} with a body that is not JSON`, {
        ...site,
        status: response.status,
        issues: [{ path: '', message: 'not JSON' }],
        cause,
      });
    }
    const parsed = safeParseFast(schema, json);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.slice(0, 10).map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    const first = issues[0];
    throw new ResponseSchemaError(
      `${site.operation} (${site.method} ${site.path}) answered with a body chatport cannot read: ${first ? `${first.path || '(root)'}: ${first.message}` : 'unexpected shape'}` +
        (issues.length > 1 ? ` (and ${issues.length - 1} more)` : '') +
        '; the platform may run a revision chatport does not know',
      { ...site, status: response.status, issues },
    );
  }

  private siteOf(spec: CallSpec, url: URL): RequestSite {
    return { operation: spec.operation, method: spec.method, path: shownPath(url, spec.capability) };
  }

  private requestUrl(spec: CallSpec): URL {
    const url = spec.url ? new URL(spec.url) : this.urlFor(spec.path ?? '/', undefined);
    if (spec.query) appendQuery(url, spec.query);
    return url;
  }

  private async sendOnce(spec: CallSpec, attempt: { token: string | undefined; ticket: RouteTicket }): Promise<HttpResponse> {
    const url = this.requestUrl(spec);
    const site = this.siteOf(spec, url);
    const headers: Record<string, string> = { accept: ACCEPT_HEADER, 'user-agent': this.config.userAgent };
    for (const [name, value] of Object.entries(spec.headers ?? {})) headers[name.toLowerCase()] = value;
    if (spec.authenticate !== false && this.auth && url.origin === this.apiOrigin) {
      attempt.token = await this.auth.getToken(spec.signal);
      headers.authorization = `Bearer ${attempt.token}`;
    }
    if (spec.body) {
      headers['content-type'] = spec.body.contentType;
      headers['content-length'] = String(spec.body.lengthBytes);
    }
    const response = await sendFollowingRedirects(
      (request) => sendOnce(this.deps.dispatcher, request, site),
      { url, method: spec.method, headers, ...(spec.body ? { body: spec.body } : {}), ...(spec.signal ? { signal: spec.signal } : {}) },
      { maxRedirects: this.config.maxRedirects, site, pathOf: (hop) => shownPath(hop, spec.capability), beforeHop: () => this.deps.pacing.gate.waitOpen(spec.signal) },
    );
    this.deps.logger.trace({ operation: spec.operation, method: spec.method, path: shownPath(response.url, spec.capability), status: response.status }, 'response');
    if (response.url.origin === this.apiOrigin) {
      const version = headerValue(response.headers, HEADER.apiVersion);
      if (version) this.serverInfo.apiVersion = version;
    }
    const retryAfterMs = response.status < 300 ? undefined : parseRetryAfter(response.headers[HEADER.retryAfter], this.deps.now());
    this.deps.pacing.observe(attempt.ticket, response.status, response.headers, retryAfterMs);
    if (response.status < 300) return response;
    const bodyText = await readLimitedText(response);
    throw createApiError(
      this.siteOf(spec, response.url),
      { status: response.status, bodyText, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
      spec.scopes,
    );
  }
}

async function readLimitedText(response: HttpResponse): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body.stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= ERROR_BODY_LIMIT_BYTES) {
        response.body.stream.destroy();
        break;
      }
    }
  } catch {
    // A body cut short still leaves the status to report.
  }
  return Buffer.concat(chunks).toString('utf8');
}
