import type { Int64 } from '../../src/shared/int64.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, startApiTestBed, writeUsersFile, type ApiTestBed } from './support.js';

let bed: ApiTestBed;
let channelId: Int64;

beforeAll(async () => {
  bed = await startApiTestBed();
  const users = writeUsersFile(23, 'pager');
  const job = await bed.client.imports.upload('users', { path: users.path });
  expect((await bed.client.jobs.wait(job.id, { initialIntervalMs: 10 })).state).toBe('FINISHED');
  const channels = [
    { type: 'PUBLIC', name: 'general', displayName: 'General', members: users.names.slice(0, 12), properties: { team: 'a' }, idempotencyKey: 'ch-general' },
    { type: 'PRIVATE', name: 'secret-room', members: users.names.slice(0, 2), properties: { team: 'b' }, idempotencyKey: 'ch-secret' },
    { type: 'DIRECT', members: [users.names[3]!, users.names[4]!], idempotencyKey: 'ch-direct' },
  ];
  const channelJob = await bed.client.imports.upload('channels', { bytes: Buffer.from(JSON.stringify(channels)) });
  expect((await bed.client.jobs.wait(channelJob.id, { initialIntervalMs: 10 })).state).toBe('FINISHED');
  const general = (await collect(bed.client.channels.list({ properties: { team: 'a' } })))[0]!;
  channelId = general.id;
  const messages = Array.from({ length: 17 }, (_, i) => ({
    type: 'TEXT',
    channelId,
    body: `message ${i}`,
    user: users.names[i % 12],
    idempotencyKey: `msg-${i}`,
  }));
  const messageJob = await bed.client.imports.upload('messages', { bytes: Buffer.from(JSON.stringify(messages)) });
  expect((await bed.client.jobs.wait(messageJob.id, { initialIntervalMs: 10 })).state).toBe('FINISHED');
});

afterAll(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

describe('pagination follows links', () => {
  it('walks every offset page of users, page by page through next links', async () => {
    bed.sandbox.clearRequests();
    const users = await collect(bed.client.users.list({ pageSize: 5 }));
    expect(users.map((u) => u.name).filter((n) => n.startsWith('pager-'))).toHaveLength(23);
    const pages = bed.sandbox.requests().filter((r) => r.method === 'GET' && r.path === '/users');
    expect(pages).toHaveLength(Math.ceil(users.length / 5));
    expect(pages.map((p) => new URLSearchParams(p.query).get('page'))).toEqual(pages.map((_, i) => (i === 0 ? null : String(i))));
  });

  it('walks cursor pages of messages to the end, in order, without repeats', async () => {
    bed.sandbox.clearRequests();
    const messages = await collect(bed.client.messages.list({ pageSize: 4 }));
    expect(messages.map((m) => m.body)).toEqual(Array.from({ length: 17 }, (_, i) => `message ${i}`));
    const requests = bed.sandbox.requests().filter((r) => r.path === '/messages');
    expect(requests).toHaveLength(5);
    expect(requests.slice(1).every((r) => new URLSearchParams(r.query).get('relation') === 'NEXT')).toBe(true);
    const inChannel = await collect(bed.client.channels.messages(channelId, { pageSize: 6, username: 'pager-0001' }));
    expect(inChannel.map((m) => m.body)).toEqual(['message 1', 'message 13']);
  });

  it('lists channels with filters, members of a channel, and gets one', async () => {
    expect((await collect(bed.client.channels.list({ type: 'PRIVATE' }))).map((c) => c.name)).toEqual(['secret-room']);
    const direct = await collect(bed.client.channels.list({ members: ['pager-0003', 'pager-0004'], type: 'DIRECT' }));
    expect(direct).toHaveLength(1);
    const members = await collect(bed.client.channels.members(channelId, { pageSize: 5 }));
    expect(members.map((m) => m.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `pager-${String(i).padStart(4, '0')}`));
    expect((await bed.client.channels.get(channelId)).name).toBe('general');
  });

  it('answers user existence with HEAD and gets a user', async () => {
    expect(await bed.client.users.exists('pager-0007')).toBe(true);
    expect(await bed.client.users.exists('nobody-here')).toBe(false);
    const [found] = await collect(bed.client.users.list({ name: 'pager-0007' }));
    expect((await bed.client.users.get(found!.id)).displayName).toBe('PAGER-0007');
  });

  it('reads the application and its settings, and records the API version', async () => {
    expect((await bed.client.application.get()).id).toBeTypeOf('number');
    const settings = await bed.client.application.getSettings();
    expect(await bed.client.application.putSettings({ ...settings, guestUsers: 'ENABLED' })).toMatchObject({ guestUsers: 'ENABLED' });
    expect(bed.client.serverInfo.apiVersion).toBe('2.112.3');
  });

  it('serves an older revision under the /v1 prefix', async () => {
    const old = bed.newClient({ pathPrefix: '/v1' });
    bed.sandbox.clearRequests();
    expect((await collect(old.jobs.list())).length).toBeGreaterThanOrEqual(3);
    expect(bed.sandbox.requests().some((r) => r.path === '/v1/jobs')).toBe(true);
  });
});
