import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/options.js';
import { createClientCredentialsProvider } from '../../src/api/auth/client-credentials.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { holdSecret, knownSecretCount, REDACTED, scrubSecrets } from '../../src/shared/secrets.js';

/**
 * A service that makes a client per run (an Airflow-triggered worker, an admin endpoint) for months: every
 * access token is registered so that logs scrub it, and every log line is scrubbed of every registered value.
 */
let sandbox: SandboxHandle;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

function newClient() {
  return createClient({ apiUrl: sandbox.url, auth: { kind: 'client-credentials', tokenUrl: sandbox.tokenUrl, ...sandbox.credentials } });
}

async function oneRun(): Promise<void> {
  const client = newClient();
  try {
    await client.application.get();
  } finally {
    await client.close();
  }
}

describe('the access tokens a client registered for scrubbing', () => {
  it('are let go when it closes: a client per run does not grow the list every log line is scrubbed against', async () => {
    await oneRun();
    const settled = knownSecretCount();
    for (let i = 0; i < 5; i++) await oneRun();
    expect(knownSecretCount()).toBe(settled);
  });

  it('are kept while it is open (its token is scrubbed from any log line)', async () => {
    await oneRun();
    const settled = knownSecretCount();
    const client = newClient();
    try {
      await client.application.get();
      expect(knownSecretCount()).toBe(settled + 1);
    } finally {
      await client.close();
    }
  });
});

describe('a sandbox\'s client secret', () => {
  it('is scrubbed while the sandbox serves and let go when it closes', async () => {
    const settled = knownSecretCount();
    const other = await startSandbox({ port: 0, clientSecret: 'sandbox-secret-h26' });
    expect(scrubSecrets('sandbox-secret-h26')).toBe(REDACTED);
    await other.close();
    expect(scrubSecrets('sandbox-secret-h26')).toBe('sandbox-secret-h26');
    expect(knownSecretCount()).toBe(settled);
  });
});

describe('an access token renewed or shared', () => {
  /** A token endpoint handing out `<prefix>-tok-<n>` for an hour, on an injected clock. */
  function provider(clock: { now: number }, prefix: string) {
    let n = 0;
    return createClientCredentialsProvider(
      { tokenUrl: 'http://127.0.0.1:1/oauth/token', clientId: 'svc', clientSecret: `${prefix}-secret-000` },
      { fetchToken: async () => ({ access_token: `${prefix}-tok-${++n}`, token_type: 'Bearer', expires_in: 3600 }), now: () => clock.now, logger: createSilentLogger() },
    );
  }

  it('stays scrubbed after its renewal, until it expires: renewed early, it may still be valid', async () => {
    const clock = { now: 0 };
    const auth = provider(clock, 'renew');
    expect(await auth.getToken()).toBe('renew-tok-1');
    clock.now = 3_550_000; // past its renewal (a minute before expiry), not past its expiry
    expect(await auth.getToken()).toBe('renew-tok-2');
    expect(scrubSecrets('old renew-tok-1, new renew-tok-2')).toBe(`old ${REDACTED}, new ${REDACTED}`);
    clock.now = 6_600_000; // the first expired, the second not: a 401 makes it fetch again
    auth.invalidate('renew-tok-2');
    expect(await auth.getToken()).toBe('renew-tok-3');
    expect(scrubSecrets('renew-tok-1')).toBe('renew-tok-1');
    expect(scrubSecrets('renew-tok-2 renew-tok-3')).toBe(`${REDACTED} ${REDACTED}`);
    auth.close?.();
    expect(scrubSecrets('renew-tok-3')).toBe('renew-tok-3');
  });

  it('stays scrubbed while any client holding it is open (a server may give two clients one token)', () => {
    const releaseA = holdSecret('shared-token-1');
    const releaseB = holdSecret('shared-token-1');
    releaseA();
    releaseA();
    expect(scrubSecrets('shared-token-1')).toBe(REDACTED);
    releaseB();
    expect(scrubSecrets('shared-token-1')).toBe('shared-token-1');
  });
});
