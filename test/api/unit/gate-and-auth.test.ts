import { describe, expect, it } from 'vitest';
import { createRateLimitGate } from '../../../src/api/retry/gate.js';
import { createClientCredentialsProvider } from '../../../src/api/auth/client-credentials.js';
import { createSilentLogger } from '../../../src/shared/logger.js';
import { scrubSecrets } from '../../../src/shared/secrets.js';

/** A clock that only moves when something sleeps on it. */
function fakeClock(start = 1_000_000) {
  let t = start;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    advance: (ms: number) => (t += ms),
    sleeps,
  };
}

describe('rate-limit gate', () => {
  it('holds every waiter until the latest pause ends', async () => {
    const clock = fakeClock();
    const gate = createRateLimitGate(clock);
    await gate.waitOpen();
    expect(clock.sleeps).toEqual([]);
    gate.pauseUntil(clock.now() + 3000);
    gate.pauseUntil(clock.now() + 1000); // an earlier end never shortens the pause
    await gate.waitOpen();
    expect(clock.sleeps).toEqual([3000]);
    expect(gate.openAtMs).toBeLessThanOrEqual(clock.now());
  });
});

describe('client-credentials provider', () => {
  const credentials = { tokenUrl: 'http://auth.test/oauth/token', clientId: 'client-1', clientSecret: 'very-secret-value' };

  function provider(clock: ReturnType<typeof fakeClock>, lifetimeSeconds = 100) {
    let issued = 0;
    const calls: string[] = [];
    const p = createClientCredentialsProvider(credentials, {
      now: clock.now,
      logger: createSilentLogger(),
      fetchToken: async ({ basicCredentials }) => {
        calls.push(basicCredentials);
        issued += 1;
        return { access_token: `token-number-${issued}`, token_type: 'bearer', expires_in: lifetimeSeconds, scope: 'read:job create:user' };
      },
    });
    return { p, calls };
  }

  it('caches the token and renews it a tenth of its lifetime before expiry', async () => {
    const clock = fakeClock();
    const { p, calls } = provider(clock);
    expect(await p.getToken()).toBe('token-number-1');
    clock.advance(89_000);
    expect(await p.getToken()).toBe('token-number-1');
    clock.advance(1_000);
    expect(await p.getToken()).toBe('token-number-2');
    expect(calls).toHaveLength(2);
    expect(p.describe()).toMatchObject({ scopes: ['read:job', 'create:user'], lifetimeSeconds: 100 });
  });

  it('shares one fetch among concurrent callers and renews after invalidate', async () => {
    const clock = fakeClock();
    const { p, calls } = provider(clock);
    const tokens = await Promise.all([p.getToken(), p.getToken(), p.getToken()]);
    expect(new Set(tokens).size).toBe(1);
    expect(calls).toHaveLength(1);
    expect(p.invalidate('some-older-token')).toBe(true);
    expect(await p.getToken()).toBe('token-number-1');
    p.invalidate('token-number-1');
    expect(await p.getToken()).toBe('token-number-2');
  });

  it('sends Basic credentials and registers every secret for scrubbing', async () => {
    const clock = fakeClock();
    const { p, calls } = provider(clock);
    const token = await p.getToken();
    expect(Buffer.from(calls[0]!, 'base64').toString()).toBe('client-1:very-secret-value');
    expect(scrubSecrets(`x ${credentials.clientSecret} ${token} ${calls[0]}`)).not.toMatch(/very-secret-value|token-number-1|Y2xpZW50/);
  });
});
