import { afterEach, describe, expect, it } from 'vitest';
import { createClient, createMergePatchBody, isResponseSchemaError, type ChatportClient } from '../../src/api/index.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { startOtherOrigin, type OtherOrigin, type ReceivedRequest } from '../helpers/other-origin.js';
import { captureLogs } from './support.js';

// A scripted server stands in for a platform revision the sandbox does not play.
let server: OtherOrigin | undefined;
let client: ChatportClient | undefined;
const logs = captureLogs();

afterEach(async () => {
  await client?.close();
  await server?.close();
  logs.expectNoSecrets(['scripted-token-value']);
});

async function scripted(respond: (r: ReceivedRequest) => { status: number; headers?: Record<string, string>; body?: string }): Promise<ChatportClient> {
  server = await startOtherOrigin({ respond });
  client = createClient({ apiUrl: server.url, auth: { kind: 'static', accessToken: 'scripted-token-value' }, retry: 'rapid' }, { logger: logs.logger });
  return client;
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({ status: 200, headers: { 'content-type': 'application/json', 'x-api-version': '1.10.13', ...headers }, body: JSON.stringify(body) });

describe('response schemas', () => {
  it('keeps unknown fields and open enum values', async () => {
    const api = await scripted(() => json({ id: 5, type: 'SOME_FUTURE_EXPORT', state: 'QUEUED', created_time: '2026-01-01T00:00:00Z', extra: { a: 1 } }));
    const job = await api.jobs.get(5);
    expect(job).toMatchObject({ id: 5, type: 'SOME_FUTURE_EXPORT', state: 'QUEUED', created_time: '2026-01-01T00:00:00Z', extra: { a: 1 } });
    expect(api.serverInfo.apiVersion).toBe('1.10.13');
    expect(server!.received[0]!.headers.authorization).toBe('Bearer scripted-token-value');
    expect(server!.received[0]!.headers.accept).toBe('application/vnd.chat+json, application/hal+json;q=0.9, application/json;q=0.8');
  });

  it('reads a snake_case revision: page envelope and resources, keeping the original keys and properties as sent', async () => {
    const api = await scripted(() =>
      json({
        _embedded: {
          users: [{ id: 1, name: 'ann', display_name: 'Ann', is_guest: true, created_time: '2026-01-01T00:00:00Z', properties: { source_id: 'u1' } }],
        },
        _links: { self: { href: '/users?page=0' } },
        page: { size: 1, total_elements: 1, total_pages: 1, number: 0 },
      }),
    );
    const users = [];
    for await (const user of api.users.list()) users.push(user);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ id: 1, name: 'ann', displayName: 'Ann', display_name: 'Ann', isGuest: true, createdTime: '2026-01-01T00:00:00Z' });
    // Data inside properties is the user's own: never renamed.
    expect(users[0]!.properties).toEqual({ source_id: 'u1' });
  });

  it('reads the older settings shape nested under features', async () => {
    const api = await scripted(() => json({ features: { guest_users: 'ENABLED', user_created_channels: 'DISABLED' } }));
    expect(await api.application.getSettings()).toEqual({ guestUsers: 'ENABLED', userCreatedChannels: 'DISABLED' });
  });

  it('a body that does not match is API_RESPONSE_INVALID, naming the field, and is not retried', async () => {
    const api = await scripted(() => json({ type: 'USER_IMPORT', state: 'PENDING' }));
    const error = await api.jobs.get(7).catch((e: unknown) => e);
    expect(isResponseSchemaError(error)).toBe(true);
    expect((error as Error).message).toContain('get job 7 (GET /jobs/7)');
    expect((error as Error).message).toMatch(/\bid\b/);
    // A server answering what the API does not describe does not speak the API: 69, not a bug of ours.
    expect(exitCodeFor(error)).toBe(ExitCode.UNAVAILABLE);
    expect(server!.received).toHaveLength(1);
  });

  it('a body that is not JSON is API_RESPONSE_INVALID too', async () => {
    const api = await scripted(() => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>proxy login</html>' }));
    const error = await api.application.get().catch((e: unknown) => e);
    expect(isResponseSchemaError(error)).toBe(true);
    expect((error as Error).message).toContain('not JSON');
  });

  it('sends merge patches and JSON with the media types of decisions.md', async () => {
    const api = await scripted((r) => json(r.method === 'PUT' ? JSON.parse(r.body.toString()) : {}));
    await api.application.putSettings({ guestUsers: 'DISABLED', userCreatedChannels: 'ENABLED' });
    expect(server!.received[0]!.headers['content-type']).toBe('application/vnd.chat+json');
    expect(JSON.parse(server!.received[0]!.body.toString())).toEqual({ guestUsers: 'DISABLED', userCreatedChannels: 'ENABLED' });
    const patched = await api.send({ operation: 'rename user 1', method: 'PATCH', path: '/users/1', body: createMergePatchBody({ displayName: 'New' }), retry: 'never' });
    await patched.body.dump();
    expect(server!.received[1]!.headers['content-type']).toBe('application/json+merge-patch');
    expect(server!.received[1]!.body.toString()).toBe('{"displayName":"New"}');
  });
});
