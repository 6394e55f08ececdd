import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, fetchToken, startTestSandbox, toReply, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo', clientId: 'the-client', clientSecret: 'the-secret-value', tokenLifetimeSeconds: 600 });
});
afterAll(() => t.close());

const UNAUTHORIZED = { error: 'unauthorized', error_description: 'full authentication is required' };
const FORBIDDEN = { error: 'access_denied', error_description: 'access is denied' };

async function tokenRequest(body: string, authorization?: string, contentType = 'application/x-www-form-urlencoded') {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (authorization) headers.authorization = authorization;
  return toReply(await fetch(t.sandbox.tokenUrl, { method: 'POST', headers, body }));
}

describe('token endpoint (decisions.md "Authentication")', () => {
  it('issues a bearer token with every scope for client credentials in Basic auth', async () => {
    const reply = await tokenRequest('grant_type=client_credentials', basic('the-client', 'the-secret-value'));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.headers.get('cache-control')).toContain('no-store');
    expect(reply.json).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 600, scope: expect.any(String) });
    expect(reply.json.scope.split(' ')).toContain('read:job');
    expect(reply.json.scope.split(' ')).toHaveLength(40);
    expect(t.sandbox.tokenUrl).toBe(`${t.url}/oauth/token`);
  });

  it('grants only the scopes asked for', async () => {
    const reply = await fetchToken(t.sandbox, 'read:user read:job');
    expect(reply.json.scope).toBe('read:user read:job');
  });

  it('refuses a wrong secret, an unknown scope and another grant type', async () => {
    const wrong = await tokenRequest('grant_type=client_credentials', basic('the-client', 'nope'));
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    const noAuth = await tokenRequest('grant_type=client_credentials');
    expect(noAuth.status).toBe(401);
    const scope = await tokenRequest('grant_type=client_credentials&scope=read:everything', basic('the-client', 'the-secret-value'));
    expect(scope.status).toBe(400);
    expect(scope.json.error).toBe('invalid_scope');
    const grant = await tokenRequest('grant_type=password', basic('the-client', 'the-secret-value'));
    expect(grant.status).toBe(400);
    expect(grant.json.error).toBe('unsupported_grant_type');
    const json = await tokenRequest('{"grant_type":"client_credentials"}', basic('the-client', 'the-secret-value'), 'application/json');
    expect(json.status).toBe(400);
  });

  it('accepts form-encoded special characters in Basic credentials (RFC 6749 §2.3.1)', async () => {
    const s = await startTestSandbox({ clientId: 'id with space', clientSecret: 'se:cret+/=' });
    try {
      const form = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
      const reply = toReply(
        await fetch(s.sandbox.tokenUrl, {
          method: 'POST',
          headers: { authorization: basic(form('id with space'), form('se:cret+/=')), 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        }),
      );
      expect((await reply).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('bearer tokens on operations (§5, §7)', () => {
  it('answers 401 with the exact body without a token', async () => {
    const reply = await t.call('/users', { token: null });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.json).toEqual(UNAUTHORIZED);
  });

  it('answers 401 for an unknown token and for a malformed header', async () => {
    expect((await t.call('/users', { token: 'not-a-token' })).json).toEqual(UNAUTHORIZED);
    const reply = await t.call('/users', { token: null, headers: { authorization: 'Basic abc' } });
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual(UNAUTHORIZED);
  });

  it('answers 401 for an expired token', async () => {
    const expired = t.sandbox.issueToken({ lifetimeSeconds: 0 });
    const reply = await t.call('/application', { token: expired });
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual(UNAUTHORIZED);
  });

  it('answers 403 with the exact body when a scope is missing', async () => {
    const readUserOnly = (await fetchToken(t.sandbox, 'read:user')).json.access_token;
    expect((await t.call('/users', { token: readUserOnly })).status).toBe(200);
    const reply = await t.call('/channels', { token: readUserOnly });
    expect(reply.status).toBe(403);
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.json).toEqual(FORBIDDEN);
    // PATCH needs read:user AND update:user.
    const patch = await t.call('/users/1', { token: readUserOnly, method: 'PATCH', body: { displayName: 'x' } });
    expect(patch.status).toBe(403);
  });

  it('checks import scopes from decisions.md', async () => {
    const noCreate = t.sandbox.issueToken({ scopes: ['read:user', 'read:job'] });
    const reply = await t.upload('/imports/users', [], { token: noCreate });
    expect(reply.status).toBe(403);
    expect(reply.json).toEqual(FORBIDDEN);
    const jobsOnly = t.sandbox.issueToken({ scopes: ['create:user'] });
    expect((await t.call('/jobs', { token: jobsOnly })).status).toBe(403);
  });
});
