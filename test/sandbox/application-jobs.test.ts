import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, startTestSandbox, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo' });
});
afterAll(() => t.close());

describe('application and settings', () => {
  it('GET /application answers the application with its links', async () => {
    const reply = await t.call('/application');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      id: 1,
      name: 'sandbox',
      key: expect.any(String),
      properties: {},
      createdTime: expect.stringMatching(ISO),
      _links: {
        self: { href: `${t.url}/application` },
        settings: { href: `${t.url}/application/settings` },
        users: { href: `${t.url}/users` },
        channels: { href: `${t.url}/channels` },
        jobs: { href: `${t.url}/jobs` },
      },
    });
  });

  it('GET and PUT /application/settings', async () => {
    expect((await t.call('/application/settings')).json).toEqual({ guestUsers: 'ENABLED', userCreatedChannels: 'ENABLED' });
    const put = await t.call('/application/settings', { method: 'PUT', body: { guestUsers: 'DISABLED', userCreatedChannels: 'ENABLED' } });
    expect(put.status).toBe(200);
    expect(put.json).toEqual({ guestUsers: 'DISABLED', userCreatedChannels: 'ENABLED' });
    expect((await t.call('/application/settings')).json.guestUsers).toBe('DISABLED');
    const partial = await t.call('/application/settings', { method: 'PUT', body: { guestUsers: 'ENABLED' } });
    expect(partial.status).toBe(400);
    const wrong = await t.call('/application/settings', { method: 'PUT', body: { guestUsers: 'MAYBE', userCreatedChannels: 'ENABLED' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.message).toContain('guestUsers');
  });
});

describe('jobs', () => {
  it('GET /jobs lists jobs, and running=true only those not yet final', async () => {
    const done = await t.upload('/imports/users', [{ name: 'j1', displayName: 'J', isGuest: false, properties: {} }]);
    await t.waitJob(done.json.id);
    t.sandbox.setJobOptions({ stuck: true });
    const stuck = await t.upload('/imports/users', [{ name: 'j2', displayName: 'J', isGuest: false, properties: {} }]);
    t.sandbox.setJobOptions({});
    const all = await t.call('/jobs');
    expect(all.status).toBe(200);
    expect(all.json._embedded.jobs.map((j: { id: number }) => j.id)).toEqual([done.json.id, stuck.json.id]);
    expect(all.json.page).toEqual({ size: 25, totalElements: 2, totalPages: 1, number: 0 });
    const running = await t.call('/jobs?running=true');
    expect(running.json._embedded.jobs.map((j: { id: number }) => j.id)).toEqual([stuck.json.id]);
    const notRunning = await t.call('/jobs?running=false');
    expect(notRunning.json._embedded.jobs.map((j: { id: number }) => j.id)).toEqual([done.json.id]);
    expect((await t.call('/jobs?running=yes')).status).toBe(400);
  });

  it('GET /jobs/{id} answers the job shape of decisions.md', async () => {
    const created = await t.upload('/imports/users', [{ name: 'j3', displayName: 'J', isGuest: false, properties: {} }]);
    const id = created.json.id;
    await t.waitJob(id);
    const reply = await t.call(`/jobs/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      id,
      type: 'USER_IMPORT',
      state: 'FINISHED',
      createdTime: expect.stringMatching(ISO),
      endedTime: expect.stringMatching(ISO),
      _links: { self: { href: `${t.url}/jobs/${id}` }, application: { href: `${t.url}/application` } },
    });
    expect((await t.call('/jobs/123456')).status).toBe(404);
  });
});
