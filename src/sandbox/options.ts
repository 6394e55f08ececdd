import type { Logger } from '../shared/logger.js';

/**
 * The sandbox's public contract: what `startSandbox(options)` takes and returns. Tests of every other
 * part of chatport drive the sandbox through this, so it changes only with care.
 */

/** Which requests a fault applies to. */
export interface FaultMatch {
  /** HTTP method, e.g. `POST`; default any. */
  method?: string;
  /** Path pattern without query; `*` matches one segment, `**` any rest (e.g. `/imports/**`); default any. */
  path?: string;
}

export type Fault =
  /** Answer with this status (500, 502, 503, ...) and a §7-style body; optional Retry-After. */
  | { kind: 'status'; status: number; retryAfter?: RetryAfterSpec }
  /**
   * A request budget per client (per token's client id): `budget` requests per `windowMs`, then 429
   * with Retry-After (seconds, or an HTTP date) until the window ends.
   */
  | { kind: 'rateLimit'; budget: number; windowMs: number; retryAfterAs?: 'seconds' | 'http-date' }
  /**
   * Destroy the connection. `before-body`: as soon as the request arrives; `mid-body`: after part of
   * the request body was read (a dropped upload); `after-processing`: the request is applied, then the
   * connection is destroyed before any response (the client cannot know it succeeded).
   * On a request without a body (a GET, a download), `mid-body` cuts the *response* half-way instead:
   * the headers promise the full length, half the bytes arrive, then the connection goes.
   */
  | { kind: 'drop'; when: 'before-body' | 'mid-body' | 'after-processing' }
  /** Wait before answering. */
  | { kind: 'delay'; ms: number }
  /**
   * Answer with a redirect. Without `toOrigin` the Location is this same server under `/_r/<path>`
   * (served exactly like `<path>`); with `toOrigin` (e.g. `http://127.0.0.1:5555`) the same path and
   * query on that origin.
   */
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; toOrigin?: string };

export type RetryAfterSpec = { seconds: number } | { httpDateInSeconds: number };

export interface FaultRule extends FaultMatch {
  fault: Fault;
  /** Probability per matching request, 0..1; default 1. */
  probability?: number;
  /** The rule retires after firing this many times; default never. */
  times?: number;
}

export interface SandboxJobOptions {
  /** Least time a job spends before it may end (PENDING → RUNNING → final); default 0. */
  minDurationMs?: number;
  /**
   * Probability that a job, import or analytics export, FAILS for no reason of its items (applies nothing);
   * default 0. Exports too: that is what rehearses `export`'s and verification's handling of a FAILED export.
   */
  failProbability?: number;
  /** When true, jobs created from now on never leave RUNNING (a job that never finishes). */
  stuck?: boolean;
  /**
   * Idempotency keys of items the platform refuses: an import job holding one FAILS (applies nothing),
   * like a refusal no client-side check can foresee. Default none.
   */
  refuseKeys?: string[];
}

export interface SandboxCapacity {
  /** Import items processed per second overall, on one line shared by all jobs (docs/sandbox.md); default unlimited. */
  itemsPerSecond?: number;
  /** Import/export jobs running at once; others wait in PENDING. Default unlimited. */
  concurrentJobs?: number;
}

export interface SandboxOptions {
  /** Chat functions: each run's time limit and memory bound (default 5 s, 64 MB; tests use shorter), and how many run at once (default 4). */
  functionLimits?: { timeoutMs: number; memoryMb: number; concurrent?: number };
  /** Port to listen on; 0 (default for tests) picks a free one. CLI default 8787. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Client credentials the token endpoint accepts; random when not given. */
  clientId?: string;
  clientSecret?: string;
  /** Access token lifetime in seconds; default 43200 (12 h, as published examples show). */
  tokenLifetimeSeconds?: number;
  /** Value of the x-api-version header; default `2.112.3`. */
  apiVersion?: string;
  /** A fixture name from fixtures/sandbox/ or a path to a seed JSON file. */
  seed?: string;
  /** Directory that keeps state across restarts; in memory only when absent. */
  dataDir?: string;
  faults?: FaultRule[];
  jobs?: SandboxJobOptions;
  capacity?: SandboxCapacity;
  /**
   * Added to every id on the wire (users, channels, messages, jobs, the application); default 0. With e.g.
   * 2n ** 53n + 1000n every id a client sees is beyond 2^53, which tests int64 handling end to end.
   */
  idBase?: bigint;
  /** How long an analytics export download URL lives, seconds; default 900. */
  exportUrlTtlSeconds?: number;
  /**
   * The sandbox's clock; default Date.now. It stamps the `createdTime` of imported and seeded records and
   * times token and download-link lifetimes, rate-limit windows and the recorded requests, so tests can put messages on given days
   * and expire a token or end a window without waiting on (or racing) the real clock. A time with
   * sub-millisecond digits is answered with them (microseconds), as a platform's timestamps may be.
   */
  clock?: () => number;
  /** Random source for fault probabilities; default Math.random. Inject for deterministic tests. */
  random?: () => number;
  logger?: Logger;
}

/** One request as the sandbox saw it (the Authorization header value is never kept). */
export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  /** Header names lowercased; `authorization` replaced by `present`/absent. */
  headers: Record<string, string>;
  /** By the sandbox's `clock` (Date.now unless one is given), as is `answeredAt`. */
  receivedAt: number;
  status?: number;
  /** When the answer's head was written (absent when the connection was dropped first). */
  answeredAt?: number;
  /** The Retry-After the answer carried: the window in which the client must not send (tests check it). */
  retryAfter?: string;
}

export interface SandboxHandle {
  url: string;
  tokenUrl: string;
  credentials: { clientId: string; clientSecret: string };
  /** Mint a token directly (tests): optional scopes (default all) and lifetime. */
  issueToken(options?: { scopes?: string[]; lifetimeSeconds?: number }): string;
  /** Replace the fault rules at run time. */
  setFaults(rules: FaultRule[]): void;
  /** Change job behaviour at run time (e.g. make jobs stick). */
  setJobOptions(options: SandboxJobOptions): void;
  /** Every request received since start or the last `clearRequests()`. */
  requests(): RecordedRequest[];
  clearRequests(): void;
  close(): Promise<void>;
}
