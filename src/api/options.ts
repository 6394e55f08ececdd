import type { Now, Sleep } from '../shared/async.js';
import type { Logger } from '../shared/logger.js';
import type { ConnectionOptions } from './http/dispatcher.js';
import type { RetryPolicy, RetryPolicyName } from './retry/policies.js';

export type AuthOptions =
  /** OAuth 2.0 client credentials (CHATPORT_TOKEN_URL, CHATPORT_CLIENT_ID, CHATPORT_CLIENT_SECRET). */
  | { kind: 'client-credentials'; tokenUrl: string; clientId: string; clientSecret: string }
  /** A bearer token obtained elsewhere (CHATPORT_ACCESS_TOKEN); cannot be renewed. */
  | { kind: 'static'; accessToken: string };

export interface ClientOptions {
  /** Base URL of the Management API (CHATPORT_API_URL), e.g. `https://chat.example.com/api`. Required. */
  apiUrl: string;
  /** Prefix before every path; default `''`; older revisions serve everything under `/v1`. */
  pathPrefix?: string;
  auth: AuthOptions;
  /** A named policy (`default`, `rapid` for tests, `none`) or a custom one; default `default`. */
  retry?: RetryPolicyName | Partial<RetryPolicy>;
  /** Redirect hops followed per request; default 10. */
  maxRedirects?: number;
  /** Timeouts and pool size; defaults in CONNECTION_DEFAULTS. */
  connection?: ConnectionOptions;
  /** User-Agent header; default `chatport`. */
  userAgent?: string;
  /**
   * The platform's limit is shared with other processes (the shards of a run, docs/sharding.md): `shares`
   * of them, and, when they share a volume, `gateFile`, through which a Retry-After one of them is told
   * holds back the others too.
   */
  rateLimitShare?: { shares: number; gateFile?: string };
}

/** What tests and embedders inject so nothing waits on real time. */
export interface ClientDeps {
  /** Default: a real timer. */
  sleep?: Sleep;
  /** Default: Date.now. */
  now?: Now;
  /** Jitter source, 0..1; default Math.random. */
  random?: () => number;
  /** Default: a silent logger. */
  logger?: Logger;
}
