import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, findNull, startTestSandbox, type Reply, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo', apiVersion: '9.9.9' });
});
afterAll(() => t.close());

function expectWireHeaders(reply: Reply): void {
  expect(reply.headers.get('x-api-version')).toBe('9.9.9');
  expect(reply.headers.get('x-response-token')).toMatch(/^[0-9a-f]{16,}$/);
  expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
  expect(reply.headers.get('x-frame-options')).toBe('DENY');
  expect(reply.headers.get('cache-control')).toMatch(/no-cache/);
  expect(reply.headers.get('cache-control')).toMatch(/no-store/);
  expect(reply.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
}

describe('wire rules (management-api.md §1, §9)', () => {
  it('puts the version, a fresh response token and the hardening headers on every response', async () => {
    const replies = [
      await t.call('/application'),
      await t.call('/users', { token: null }),
      await t.call('/channels/999999'),
      await t.call('/v1/users', { redirect: 'manual' }),
      await t.call('/oauth/token', { method: 'POST', token: null, body: 'x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    ];
    for (const reply of replies) expectWireHeaders(reply);
    const tokens = new Set(replies.map((r) => r.headers.get('x-response-token')));
    expect(tokens.size).toBe(replies.length);
  });

  it('answers success as application/vnd.chat+json by default and honours Accept', async () => {
    expect((await t.call('/application')).headers.get('content-type')).toBe('application/vnd.chat+json');
    const hal = await t.call('/application', { headers: { accept: 'application/hal+json' } });
    expect(hal.headers.get('content-type')).toBe('application/hal+json');
    const weighted = await t.call('/application', { headers: { accept: 'application/vnd.chat+json;q=0.5, application/json;q=0.9' } });
    expect(weighted.headers.get('content-type')).toBe('application/json');
  });

  it('never sends null and writes times as ISO 8601 UTC', async () => {
    for (const path of ['/application', '/users', '/channels', '/messages', '/channels/1', '/users/1']) {
      const reply = await t.call(path);
      expect(reply.status).toBe(200);
      expect(findNull(reply.json), path).toBeUndefined();
    }
    const message = (await t.call('/messages/1')).json;
    expect(message.createdTime).toMatch(ISO);
    expect('user' in message).toBe(false); // a SYSTEM_TEXT message has no user: omitted, not null
  });

  it('answers unknown ids with 404 ResourceNotFoundError', async () => {
    for (const path of ['/users/4242', '/channels/4242', '/messages/4242', '/jobs/4242', '/nowhere']) {
      const reply = await t.call(path);
      expect(reply.status, path).toBe(404);
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.json).toEqual({ error: 'ResourceNotFoundError', message: 'resource not found', timestamp: expect.stringMatching(ISO) });
    }
  });

  it('answers a non-numeric id, malformed JSON and invalid fields with 400 ClientError', async () => {
    const clientError = { error: 'ClientError', message: expect.stringMatching(/^a client error occurred/), timestamp: expect.stringMatching(ISO) };
    const badId = await t.call('/users/abc');
    expect(badId.status).toBe(400);
    expect(badId.json).toEqual(clientError);
    const malformed = await t.call('/users', { method: 'POST', body: '{"name": "x", ' });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toBe('application/json');
    expect(malformed.json).toEqual(clientError);
    const invalid = await t.call('/users', { method: 'POST', body: { name: 'dora', displayName: 'Dora' } });
    expect(invalid.status).toBe(400);
    expect(invalid.json).toEqual(clientError);
    expect(invalid.json.message).toContain('isGuest');
    const notJson = await t.call('/users', { method: 'POST', body: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(notJson.status).toBe(400);
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const reply = await t.call('/application', { method: 'DELETE' });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers HEAD wherever it answers GET (§1 wire rule 7: standard verbs carry their usual meaning), with no body', async () => {
    const get = await t.call('/users/1');
    const head = await t.call('/users/1', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expectWireHeaders(head);
    expect((await t.call('/users/999', { method: 'HEAD' })).status).toBe(404);
    expect((await t.call('/users/1', { method: 'HEAD', token: null })).status).toBe(401);
    // HEAD /users keeps its own meaning (§4: an existence check by name).
    expect((await t.call('/users?name=nobody', { method: 'HEAD' })).status).toBe(404);
  });
});

describe('the /v1 prefix of older revisions', () => {
  it('redirects GET with 301 and other methods with 308 to the unprefixed path, keeping the query', async () => {
    const get = await t.call('/v1/users?size=2&page=0', { redirect: 'manual' });
    expect(get.status).toBe(301);
    expect(get.headers.get('location')).toBe(`${t.url}/users?size=2&page=0`);
    const post = await t.call('/v1/users', { method: 'POST', body: { name: 'v1user', displayName: 'V1', isGuest: false }, redirect: 'manual' });
    expect(post.status).toBe(308);
    expect(post.headers.get('location')).toBe(`${t.url}/users`);
  });

  it('is followed by a client to the same answer, the body kept on 308', async () => {
    const get = await t.call('/v1/users?name=alice');
    expect(get.status).toBe(200);
    expect(get.json._embedded.users[0].name).toBe('alice');
    const post = await t.call('/v1/users', { method: 'POST', body: { name: 'v1user', displayName: 'V1', isGuest: false } });
    expect(post.status).toBe(200);
    expect(post.json.name).toBe('v1user');
  });
});

describe('requests() records what the server saw', () => {
  it('keeps method, path, query and headers, and only whether Authorization was present', async () => {
    t.sandbox.clearRequests();
    await t.call('/users?name=bob', { headers: { 'x-trace': 'abc' } });
    await t.call('/users', { token: null });
    const seen = t.sandbox.requests();
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({ method: 'GET', path: '/users', query: 'name=bob', status: 200 });
    expect(seen[0]!.headers.authorization).toBe('present');
    expect(seen[0]!.headers['x-trace']).toBe('abc');
    expect(JSON.stringify(seen)).not.toContain(t.token);
    expect(seen[1]!.headers.authorization).toBeUndefined();
    expect(seen[1]!.status).toBe(401);
  });
});
