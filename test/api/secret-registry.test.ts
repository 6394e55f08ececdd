import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle } from '../../src/sandbox/options.js';
import { knownSecretCount } from '../../src/shared/secrets.js';

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
