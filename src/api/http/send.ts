import type { Dispatcher } from 'undici';
import type { RequestSite } from '../errors/api-error.js';
import { NetworkError, TimeoutError } from '../errors/api-error.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** Error codes that mean the connection was never made: the server cannot have seen the request. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const TIMEOUT_PHASE: Record<string, 'connect' | 'headers' | 'body'> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'headers',
  UND_ERR_BODY_TIMEOUT: 'body',
};

/** One HTTP exchange, no redirects, no retries. Transport failures become NetworkError / TimeoutError. */
export async function sendOnce(dispatcher: Dispatcher, request: HttpRequest, site: RequestSite): Promise<HttpResponse> {
  try {
    const response = await dispatcher.request({
      origin: request.url.origin,
      path: request.url.pathname + request.url.search,
      method: request.method,
      headers: request.headers,
      body: request.body?.open() ?? null,
      signal: request.signal,
    });
    const body = response.body;
    return {
      status: response.statusCode,
      headers: response.headers,
      url: request.url,
      body: {
        stream: body,
        text: () => body.text().catch((error: unknown) => Promise.reject(mapTransportError(error, site, request))),
        dump: () => body.dump().then(() => undefined),
      },
    };
  } catch (error) {
    throw mapTransportError(error, site, request);
  }
}

/** Turns undici and socket errors into the API error kinds; an abort passes through as its reason. */
export function mapTransportError(error: unknown, site: RequestSite, request: Pick<HttpRequest, 'url' | 'signal'>): unknown {
  if (request.signal?.aborted) return request.signal.reason ?? error;
  const code = (error as { code?: unknown } | null)?.code;
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  const where = `${site.operation} (${site.method} ${site.path} on ${request.url.origin})`;
  if (typeof code === 'string' && code in TIMEOUT_PHASE) {
    const phase = TIMEOUT_PHASE[code]!;
    return new TimeoutError(`${where} timed out waiting for the ${phase === 'connect' ? 'connection' : `response ${phase}`}; the server is slow or unreachable`, {
      ...site,
      phase,
      cause: error,
    });
  }
  if (typeof code !== 'string' || !(code.startsWith('E') || code.startsWith('UND_ERR'))) return error;
  const reachedServer = !(NOT_CONNECTED.has(code) || syscall === 'connect' || syscall === 'getaddrinfo');
  const what = reachedServer ? 'lost the connection' : 'could not connect';
  return new NetworkError(`${where} ${what} (${code}); check the network and the API URL`, {
    ...site,
    reachedServer,
    cause: error,
    details: { networkCode: code },
  });
}
