import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sendFollowingRedirects } from '../../../src/api/http/redirects.js';
import { createJsonBody } from '../../../src/api/http/body.js';
import type { HttpRequest, HttpResponse } from '../../../src/api/http/types.js';
import { isRedirectError } from '../../../src/api/errors/guards.js';

const site = { operation: 'test', method: 'POST', path: '/imports/users' };

function answer(status: number, location?: string): HttpResponse {
  return {
    status,
    headers: location ? { location } : {},
    url: new URL('http://placeholder'),
    body: { stream: Readable.from([]), text: async () => '', dump: async () => undefined },
  };
}

/** A fake server: answers from a script and records what each hop sent, including the body bytes. */
function scripted(script: Array<[number, string?]>) {
  const seen: Array<{ url: string; method: string; headers: Record<string, string>; body?: string }> = [];
  const send = async (request: HttpRequest) => {
    const body = request.body?.open();
    seen.push({ url: request.url.href, method: request.method, headers: request.headers, ...(typeof body === 'string' ? { body } : {}) });
    const [status, location] = script[seen.length - 1] ?? [200];
    return { ...answer(status, location), url: request.url };
  };
  return { send, seen };
}

const first = (): HttpRequest => ({
  url: new URL('http://api.test/imports/users'),
  method: 'POST',
  headers: { authorization: 'Bearer t0ken-value', 'content-type': 'application/vnd.chat+json', 'content-length': '7' },
  body: createJsonBody([1, 2]),
});

describe('sendFollowingRedirects', () => {
  it('lets each hop wait (for a Retry-After pause begun meanwhile) before it is sent, not the first request', async () => {
    const { send, seen } = scripted([[307, '/_r/imports/users'], [308, 'http://api.test/again'], [202]]);
    const waitedBefore: number[] = [];
    await sendFollowingRedirects(send, first(), { maxRedirects: 5, site, beforeHop: async () => void waitedBefore.push(seen.length) });
    // Waited after the first answer and after the second, each time before the next hop went out.
    expect(waitedBefore).toEqual([1, 2]);
    expect(seen).toHaveLength(3);
  });

  it('keeps method and body on 307/308', async () => {
    const { send, seen } = scripted([[307, '/_r/imports/users'], [308, 'http://api.test/again'], [202]]);
    const response = await sendFollowingRedirects(send, first(), { maxRedirects: 5, site });
    expect(response.status).toBe(202);
    expect(response.url.href).toBe('http://api.test/again');
    expect(seen.map((s) => [s.method, s.body])).toEqual([['POST', '[1,2]'], ['POST', '[1,2]'], ['POST', '[1,2]']]);
    expect(seen.every((s) => s.headers.authorization === 'Bearer t0ken-value')).toBe(true);
  });

  it('repeats method and body on 301/302/303 too ("the client repeats the request", management-api.md §1.6)', async () => {
    for (const status of [301, 302, 303]) {
      const { send, seen } = scripted([[status, '/elsewhere'], [200]]);
      await sendFollowingRedirects(send, first(), { maxRedirects: 5, site });
      expect(seen[1]).toMatchObject({ method: 'POST', url: 'http://api.test/elsewhere', body: '[1,2]' });
      expect(seen[1]!.headers['content-type']).toBe('application/vnd.chat+json');
    }
  });

  it('drops Authorization for good once a hop leaves the origin', async () => {
    const { send, seen } = scripted([[307, 'http://storage.test/x'], [307, 'http://api.test/back'], [200]]);
    await sendFollowingRedirects(send, first(), { maxRedirects: 5, site });
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer t0ken-value', undefined, undefined]);
    expect(seen[1]!.body).toBe('[1,2]');
  });

  it('stops after the hop limit and refuses non-http locations', async () => {
    const loop = scripted(Array.from({ length: 10 }, () => [302, '/loop'] as [number, string]));
    const error = await sendFollowingRedirects(loop.send, first(), { maxRedirects: 3, site }).catch((e: unknown) => e);
    expect(isRedirectError(error)).toBe(true);
    expect(loop.seen).toHaveLength(4);
    const ftp = scripted([[302, 'ftp://x.test/file']]);
    expect(isRedirectError(await sendFollowingRedirects(ftp.send, first(), { maxRedirects: 3, site }).catch((e: unknown) => e))).toBe(true);
  });

  it('returns a 3xx without Location as it is', async () => {
    const { send } = scripted([[304]]);
    expect((await sendFollowingRedirects(send, first(), { maxRedirects: 3, site })).status).toBe(304);
  });
});
