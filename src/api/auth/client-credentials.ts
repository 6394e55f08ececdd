import type { Now } from '../../shared/async.js';
import type { Logger } from '../../shared/logger.js';
import { holdSecret, registerSecret } from '../../shared/secrets.js';
import type { TokenResponse } from '../../wire/resources.js';
import type { TokenInfo, TokenProvider } from './provider.js';

export interface ClientCredentials {
  /** Token endpoint (decisions.md: configuration; the sandbox serves `/oauth/token`). */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
}

/** Fetches and parses one token response; given by the client so the request gets its retries and redirects. */
export type FetchToken = (request: { tokenUrl: string; basicCredentials: string }) => Promise<TokenResponse>;

/**
 * OAuth 2.0 client credentials (decisions.md "Authentication"). There is no refresh token: the token is
 * cached and fetched again shortly before `expires_in` runs out (a tenth of its lifetime, at most a
 * minute, before), and once more when the API answers 401. Concurrent callers share one fetch.
 */
export function createClientCredentialsProvider(
  credentials: ClientCredentials,
  deps: { fetchToken: FetchToken; now: Now; logger: Logger },
): TokenProvider {
  registerSecret(credentials.clientSecret);
  const basicCredentials = Buffer.from(`${encodeURIComponent(credentials.clientId)}:${encodeURIComponent(credentials.clientSecret)}`).toString('base64');
  registerSecret(basicCredentials);
  let cached: { token: string; renewAtMs: number; info: TokenInfo } | undefined;
  let inFlight: Promise<string> | undefined;
  /** Every token fetched and not yet expired, scrubbed from logs until it expires or the client closes (a renewed one may still be valid). */
  const held: Array<{ expiresAtMs: number; release: () => void }> = [];
  const releaseExpired = (now: number) => {
    for (let i = held.length - 1; i >= 0; i--) if (held[i]!.expiresAtMs <= now) held.splice(i, 1)[0]!.release();
  };

  async function fetchFresh(): Promise<string> {
    const response = await deps.fetchToken({ tokenUrl: credentials.tokenUrl, basicCredentials });
    const now = deps.now();
    releaseExpired(now);
    const lifetimeMs = response.expires_in * 1000;
    const renewAtMs = now + lifetimeMs - Math.min(60_000, lifetimeMs / 10);
    const info: TokenInfo = {
      scopes: (response.scope ?? '').split(/\s+/).filter(Boolean),
      expiresAtMs: now + lifetimeMs,
      lifetimeSeconds: response.expires_in,
    };
    held.push({ expiresAtMs: info.expiresAtMs, release: holdSecret(response.access_token) });
    cached = { token: response.access_token, renewAtMs, info };
    deps.logger.debug({ lifetimeSeconds: info.lifetimeSeconds, scopes: info.scopes }, 'access token obtained');
    return response.access_token;
  }

  return {
    kind: 'client-credentials',
    getToken(signal) {
      if (cached && deps.now() < cached.renewAtMs) return Promise.resolve(cached.token);
      // The fetch is shared, so one caller's abort must not fail the others: each caller races its own signal.
      inFlight ??= fetchFresh().finally(() => {
        inFlight = undefined;
      });
      return signal ? untilAborted(inFlight, signal) : inFlight;
    },
    invalidate(token) {
      if (cached?.token === token) cached = undefined;
      return true;
    },
    describe: () => cached?.info,
    close() {
      releaseExpired(Infinity);
      cached = undefined;
    },
  };
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
