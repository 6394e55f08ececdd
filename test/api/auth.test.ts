import { afterEach, describe, expect, it } from 'vitest';
import { createClient, isForbiddenError, isServerError, isUnauthorizedError } from '../../src/api/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { startOtherOrigin, type OtherOrigin } from '../helpers/other-origin.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;
let tokenProxy: OtherOrigin | undefined;

afterEach(async () => {
  await bed.close();
  await tokenProxy?.close();
  tokenProxy = undefined;
});

/** Tokens the sandbox handed out through the proxy: the test learns them, the logs must not. */
function tokensSeen(): string[] {
  return (tokenProxy?.relayed ?? []).map((b) => (JSON.parse(b.toString('utf8')) as { access_token?: string }).access_token ?? '');
}

describe('client credentials', () => {
  it('renews a token that expires mid-run before it is refused', async () => {
    // One clock for the sandbox and the client, moved by the test: renewal comes a tenth of the 2 s
    // lifetime early, and no real time passes, so a busy machine cannot move a request past an expiry.
    let clockMs = Date.now();
    const clock = () => clockMs;
    bed = await startApiTestBed({ tokenLifetimeSeconds: 2, clock });
    tokenProxy = await startOtherOrigin({ forwardTo: bed.sandbox.url });
    const client = bed.newClient({ auth: { kind: 'client-credentials', tokenUrl: `${tokenProxy.url}/oauth/token`, ...bed.sandbox.credentials } }, { now: clock });
    const start = clockMs;
    for (const atMs of [0, 1000, 1700, 1850, 1990, 2500, 3700, 3900]) {
      clockMs = start + atMs;
      await client.application.get();
    }
    const requests = bed.sandbox.requests();
    expect(requests.filter((r) => r.path === '/application').map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
    // Fetched at 0, renewed at 1.85 s (within 0.2 s of 2 s) and at 3.7 s (within 0.2 s of 3.85 s).
    expect(tokenProxy.received).toHaveLength(3);
    expect(tokenProxy.received.every((r) => r.headers.authorization?.startsWith('Basic '))).toBe(true);
    expect(tokenProxy.received[0]!.body.toString()).toBe('grant_type=client_credentials');
    bed.logs.expectNoSecrets([...bed.secrets(), ...tokensSeen()]);
  });

  it('fetches a new token once when the API answers 401', async () => {
    let sandboxClockMs = Date.now();
    bed = await startApiTestBed({ tokenLifetimeSeconds: 1, clock: () => sandboxClockMs });
    tokenProxy = await startOtherOrigin({ forwardTo: bed.sandbox.url });
    // A client clock that stands still: it believes its token is fresh; the server's clock moves on.
    const frozen = Date.now();
    const client = bed.newClient({ auth: { kind: 'client-credentials', tokenUrl: `${tokenProxy.url}/oauth/token`, ...bed.sandbox.credentials } }, { now: () => frozen });
    await client.application.get();
    sandboxClockMs += 1100;
    await client.application.get();
    expect(bed.sandbox.requests().filter((r) => r.path === '/application').map((r) => r.status)).toEqual([200, 401, 200]);
    expect(tokenProxy.received).toHaveLength(2);
    expect(bed.logs.lines.some((l) => l.includes('refused the access token (401)'))).toBe(true);
    bed.logs.expectNoSecrets([...bed.secrets(), ...tokensSeen()]);
  });

  it('reports refused client credentials as API_UNAUTHORIZED (exit 77) without the secret', async () => {
    bed = await startApiTestBed();
    const wrongSecret = 'definitely-wrong-secret';
    const client = bed.newClient({ auth: { kind: 'client-credentials', tokenUrl: bed.sandbox.tokenUrl, clientId: bed.sandbox.credentials.clientId, clientSecret: wrongSecret } });
    const error = await client.jobs.get(1).catch((e: unknown) => e);
    expect(isUnauthorizedError(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.AUTH);
    expect((error as Error).message).toContain('get an access token');
    expect(JSON.stringify((error as { toJSON(): unknown }).toJSON())).not.toContain(wrongSecret);
    expect(bed.sandbox.requests().filter((r) => r.path === '/oauth/token')).toHaveLength(1);
    bed.logs.expectNoSecrets([...bed.secrets(), wrongSecret]);
  });
});

describe('token endpoint failures', () => {
  // RFC 6749 §5.2: a token endpoint refuses credentials with 400 and an OAuth error code (Cognito, Entra
  // ID do so for a wrong secret). That is the operator's credentials (77), not a chatport bug (1).
  it('a 400 with an OAuth error code (invalid_client) is refused credentials: exit 77, no secret', async () => {
    bed = await startApiTestBed();
    const wrongSecret = 'another-wrong-secret-42';
    tokenProxy = await startOtherOrigin({
      respond: () => ({ status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: 'invalid_client', error_description: 'Client authentication failed' }) }),
    });
    const client = bed.newClient({ auth: { kind: 'client-credentials', tokenUrl: `${tokenProxy.url}/oauth/token`, clientId: 'someone', clientSecret: wrongSecret } });
    const error = await client.application.get().catch((e: unknown) => e);
    expect(isUnauthorizedError(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.AUTH);
    expect((error as Error).message).toContain('invalid_client');
    expect((error as Error).message).toContain('CHATPORT_CLIENT_SECRET');
    expect(tokenProxy.received).toHaveLength(1);
    bed.logs.expectNoSecrets([...bed.secrets(), wrongSecret]);
  });

  it('are retried by the token request alone, not again by the call that needed the token', async () => {
    bed = await startApiTestBed();
    bed.sandbox.setFaults([{ method: 'POST', path: '/oauth/token', fault: { kind: 'status', status: 503 } }]);
    const error = await bed.client.application.get().catch((e: unknown) => e);
    expect(isServerError(error)).toBe(true);
    expect((error as Error).message).toContain('get an access token');
    expect(bed.sandbox.requests().filter((r) => r.path === '/oauth/token')).toHaveLength(5);
    expect(bed.sandbox.requests().filter((r) => r.path === '/application')).toHaveLength(0);
    bed.logs.expectNoSecrets(bed.secrets());
  });
});

describe('scopes and static tokens', () => {
  it('a missing scope is a 403 whose message names the scope', async () => {
    bed = await startApiTestBed();
    const token = bed.sandbox.issueToken({ scopes: ['read:application', 'create:user'] });
    const client = bed.newClient({ auth: { kind: 'static', accessToken: token } });
    const error = await client.jobs.get(1).catch((e: unknown) => e);
    expect(isForbiddenError(error)).toBe(true);
    expect(exitCodeFor(error)).toBe(ExitCode.AUTH);
    expect((error as Error).message).toMatch(/read:job/);
    expect((error as Error).message).toContain('access_denied');
    expect(bed.sandbox.requests().filter((r) => r.path === '/jobs/1')).toHaveLength(1);
    bed.logs.expectNoSecrets([...bed.secrets(), token]);
  });

  it('a static token that expires is reported, not renewed', async () => {
    let clockMs = Date.now();
    bed = await startApiTestBed({ clock: () => clockMs });
    const token = bed.sandbox.issueToken({ lifetimeSeconds: 1 });
    const client = createClient({ apiUrl: bed.sandbox.url, auth: { kind: 'static', accessToken: token }, retry: 'rapid' }, { logger: bed.logs.logger });
    await client.application.get();
    clockMs += 1100;
    const error = await client.application.get().catch((e: unknown) => e);
    await client.close();
    expect(isUnauthorizedError(error)).toBe(true);
    expect((error as Error).message).toMatch(/CHATPORT_ACCESS_TOKEN/);
    expect(bed.sandbox.requests().filter((r) => r.path === '/application').map((r) => r.status)).toEqual([200, 401]);
    bed.logs.expectNoSecrets([...bed.secrets(), token]);
  });
});
