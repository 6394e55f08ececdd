import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createClient, type ChatportClient, type ClientDeps, type ClientOptions } from '../../src/api/index.js';
import { createLogger, type Logger } from '../../src/shared/logger.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { SandboxHandle, SandboxOptions } from '../../src/sandbox/options.js';

/**
 * Every log line of the client, at trace level, through the project's own logger (as in production).
 * `expectNoSecrets` checks the raw lines for the secrets and also for the redaction marker: the
 * client should never even try to log a secret, so nothing may have needed redacting.
 */
export function captureLogs(): { logger: Logger; lines: string[]; expectNoSecrets(secrets: Array<string | undefined>): void } {
  const lines: string[] = [];
  const logger = createLogger({ level: 'trace', destination: { write: (line: string) => (lines.push(line), true) } as unknown as NodeJS.WritableStream });
  return {
    logger,
    lines,
    expectNoSecrets(secrets) {
      const all = lines.join('');
      for (const secret of secrets) if (secret) expect(all.includes(secret), 'a secret reached the log').toBe(false);
      expect(all).not.toContain('[REDACTED]');
      expect(all).not.toMatch(/Bearer\s+\S{6,}|Basic\s+\S{6,}/);
    },
  };
}

export interface ApiTestBed {
  sandbox: SandboxHandle;
  client: ChatportClient;
  logs: ReturnType<typeof captureLogs>;
  /** The client secret and the Basic credential made from it (tokens are checked where a test sees them). */
  secrets(): string[];
  newClient(options?: Partial<ClientOptions>, deps?: ClientDeps): ChatportClient;
  close(): Promise<void>;
}

/** A sandbox on port 0 and a client on the `rapid` policy with client credentials and captured logs. */
export async function startApiTestBed(sandboxOptions: SandboxOptions = {}, clientOptions: Partial<ClientOptions> = {}, deps: ClientDeps = {}): Promise<ApiTestBed> {
  const sandbox = await startSandbox(sandboxOptions);
  const logs = captureLogs();
  const clients: ChatportClient[] = [];
  const newClient = (options: Partial<ClientOptions> = {}, extra: ClientDeps = {}) => {
    const client = createClient(
      {
        apiUrl: sandbox.url,
        auth: { kind: 'client-credentials', tokenUrl: sandbox.tokenUrl, ...sandbox.credentials },
        retry: 'rapid',
        ...clientOptions,
        ...options,
      },
      { logger: logs.logger, ...deps, ...extra },
    );
    clients.push(client);
    return client;
  };
  const client = newClient();
  return {
    sandbox,
    client,
    logs,
    secrets: () => [
      sandbox.credentials.clientSecret,
      Buffer.from(`${encodeURIComponent(sandbox.credentials.clientId)}:${encodeURIComponent(sandbox.credentials.clientSecret)}`).toString('base64'),
    ],
    newClient,
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await sandbox.close();
    },
  };
}

/** A JSON-array file of users with idempotency keys, written to a fresh temp dir. */
export function writeUsersFile(count: number, prefix = 'user'): { path: string; names: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'chatport-api-test-'));
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);
  const items = names.map((name) => ({ name, displayName: name.toUpperCase(), isGuest: false, properties: { n: name }, idempotencyKey: `key-${name}` }));
  const path = join(dir, `${prefix}.json`);
  writeFileSync(path, JSON.stringify(items));
  return { path, names };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
