import { Agent } from 'undici';
import type { Dispatcher } from 'undici';

export interface ConnectionOptions {
  /** Time to open a TCP/TLS connection. Default 10 000 ms. */
  connectTimeoutMs?: number;
  /** Time from the request being sent to the response headers. Default 60 000 ms (imports of big files take a while). */
  headersTimeoutMs?: number;
  /** Longest silence while a response body arrives. Default 60 000 ms. */
  bodyTimeoutMs?: number;
  /** Connections per origin. Default 16. */
  connectionsPerOrigin?: number;
  /** How long an idle keep-alive connection is kept. Default 10 000 ms. */
  keepAliveTimeoutMs?: number;
}

export const CONNECTION_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
  connectionsPerOrigin: 16,
  keepAliveTimeoutMs: 10_000,
} as const satisfies Required<ConnectionOptions>;

/** The keep-alive pool every call of one client shares (one undici Agent: a Pool per origin). */
export function createDispatcher(options: Required<ConnectionOptions>): Dispatcher {
  return new Agent({
    connections: options.connectionsPerOrigin,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    headersTimeout: options.headersTimeoutMs,
    bodyTimeout: options.bodyTimeoutMs,
    connect: { timeout: options.connectTimeoutMs },
  });
}

export type { Dispatcher };
