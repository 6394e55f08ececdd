import type { RequestSite } from '../errors/api-error.js';
import { RedirectError } from '../errors/api-error.js';
import { headerValue, type HttpRequest, type HttpResponse, type SendOnce } from './types.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Follows redirects by hand (management-api.md §1.6, decisions.md): for every redirect the API may send
 * (301/302/303/307/308) "the client repeats the request" at the Location, same method and body (the body is
 * re-opened, so it is sent whole). Not fetch's habit of turning a POST into a GET on 301/302/303: that would
 * send a token request or an upload as a bodiless GET, which the API refuses (405).
 * `Authorization` is dropped for good once a hop leaves the original origin, so neither the bearer token
 * nor Basic credentials reach a storage service or any other host.
 */
export async function sendFollowingRedirects(
  send: SendOnce,
  first: HttpRequest,
  options: { maxRedirects: number; site: RequestSite; pathOf?: (url: URL) => string; beforeHop?: () => Promise<void> },
): Promise<HttpResponse> {
  let request = first;
  for (let hop = 0; ; hop++) {
    // A hop is a new request: it too waits for a pause the client began meanwhile (a Retry-After).
    if (hop > 0) await options.beforeHop?.();
    const response = await send(request);
    const location = headerValue(response.headers, 'location');
    if (!REDIRECTS.has(response.status) || location === undefined) return response;
    await response.body.dump();
    const site = { ...options.site, path: options.pathOf?.(request.url) ?? request.url.pathname };
    if (hop >= options.maxRedirects)
      throw new RedirectError(`${site.operation} (${site.method} ${site.path}) was redirected more than ${options.maxRedirects} times; the server may be misconfigured`, {
        ...site,
        status: response.status,
      });
    let next: URL;
    try {
      next = new URL(location, request.url);
    } catch (cause) {
      throw new RedirectError(`${site.operation} (${site.method} ${site.path}) was redirected to an invalid Location`, { ...site, status: response.status, cause });
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new RedirectError(`${site.operation} (${site.method} ${site.path}) was redirected to a ${next.protocol} address, which chatport does not follow`, {
        ...site,
        status: response.status,
      });
    request = nextRequest(request, next, first.url.origin);
  }
}

function nextRequest(previous: HttpRequest, url: URL, firstOrigin: string): HttpRequest {
  const headers = { ...previous.headers };
  if (url.origin !== firstOrigin) delete headers.authorization;
  return { ...previous, url, headers };
}
