import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, startTestSandbox, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo' });
});
afterAll(() => t.close());

/** A User as management-api.md §2 describes it, written out by hand. */
function userJson(base: string, id: number, name: string, displayName: string, properties: object, extra: object = {}) {
  return {
    id,
    type: 'PERSON',
    name,
    displayName,
    isGuest: false,
    presence: { status: 'UNAVAILABLE', online: false },
    callStatus: 'AVAILABLE',
    properties,
    createdTime: expect.stringMatching(ISO),
    _links: {
      self: { href: `${base}/users/${id}` },
      channels: { href: `${base}/users/${id}/channels` },
      messages: { href: `${base}/users/${id}/messages` },
    },
    ...extra,
  };
}

describe('users', () => {
  it('POST /users creates a user and answers it', async () => {
    const reply = await t.call('/users', { method: 'POST', body: { name: 'dora', displayName: 'Dora Diaz', isGuest: false, properties: { k: 1 } } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('application/vnd.chat+json');
    expect(reply.json).toEqual(userJson(t.url, 5, 'dora', 'Dora Diaz', { k: 1 }));
    const taken = await t.call('/users', { method: 'POST', body: { name: 'dora', displayName: 'Again', isGuest: false } });
    expect(taken.status).toBe(400);
    expect(taken.json.error).toBe('ClientError');
  });

  it('GET /users/{id} answers the user', async () => {
    const reply = await t.call('/users/2');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(userJson(t.url, 2, 'bob', 'Bob Baker', { team: 'data' }));
  });

  it('GET /users lists with name and properties filters', async () => {
    const byName = await t.call('/users?name=carol');
    expect(byName.json._embedded.users).toEqual([userJson(t.url, 3, 'carol', 'Carol Chen', {})]);
    expect(byName.json.page).toEqual({ size: 25, totalElements: 1, totalPages: 1, number: 0 });
    const byProps = await t.call(`/users?properties=${encodeURIComponent('{"team":"platform"}')}`);
    expect(byProps.json._embedded.users.map((u: { name: string }) => u.name)).toEqual(['alice']);
    const none = await t.call('/users?name=nobody');
    expect(none.json._embedded.users).toEqual([]);
    const bad = await t.call('/users?properties=notjson');
    expect(bad.status).toBe(400);
  });

  it('HEAD /users?name= tells whether a user exists', async () => {
    const found = await t.call('/users?name=alice', { method: 'HEAD' });
    expect(found.status).toBe(200);
    expect(found.text).toBe('');
    expect(found.headers.get('x-api-version')).toBeTruthy();
    expect((await t.call('/users?name=nobody', { method: 'HEAD' })).status).toBe(404);
    expect((await t.call('/users', { method: 'HEAD' })).status).toBe(400);
  });

  it('PATCH /users/{id} merges the patch', async () => {
    const reply = await t.call('/users/1', {
      method: 'PATCH',
      body: { displayName: 'Alice A.', properties: { team: null, level: 3 } },
      headers: { 'content-type': 'application/json+merge-patch' },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual(userJson(t.url, 1, 'alice', 'Alice A.', { level: 3 }));
    const renamed = await t.call('/users/1', { method: 'PATCH', body: { name: 'bob' }, headers: { 'content-type': 'application/json+merge-patch' } });
    expect(renamed.status).toBe(400);
  });

  it('PATCH /users/{id} refuses a field it cannot change or does not know (400), and changes nothing', async () => {
    const before = (await t.call('/users/2')).json;
    const patch = (body: unknown) => t.call('/users/2', { method: 'PATCH', body, headers: { 'content-type': 'application/json+merge-patch' } });
    for (const [body, field] of [[{ id: 7 }, 'id'], [{ displayName: 'B.', guest: true }, 'guest']] as const) {
      const refused = await patch(body);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ error: 'ClientError', message: expect.stringContaining(`field '${field}'`) });
    }
    expect((await t.call('/users/2')).json).toEqual(before);
  });

  it("GET /users/{id}/channels lists the channels the user created or joined", async () => {
    const reply = await t.call('/users/3/channels');
    expect(reply.status).toBe(200);
    expect(reply.json._embedded.channels.map((c: { name: string }) => c.name)).toEqual(['general', 'data-team']);
    expect(reply.json.page.totalElements).toBe(2);
  });

  it("GET /users/{id}/messages is a cursor page of the user's messages", async () => {
    const reply = await t.call('/users/2/messages');
    expect(reply.status).toBe(200);
    expect(reply.json.page).toEqual({ size: 25 });
    expect(reply.json._embedded.messages.map((m: { body: string }) => m.body)).toEqual(['Hi Alice, the export ran fine.', 'Sure, 12:30.']);
    expect(reply.json._embedded.messages[0].user.name).toBe('bob');
  });

  it('DELETE /users/{id} removes the user and answers the application', async () => {
    const created = await t.call('/users', { method: 'POST', body: { name: 'temp', displayName: 'Temp', isGuest: true } });
    const reply = await t.call(`/users/${created.json.id}`, { method: 'DELETE' });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ id: 1, name: 'sandbox', _links: { self: { href: `${t.url}/application` } } });
    expect((await t.call(`/users/${created.json.id}`)).status).toBe(404);
    expect((await t.call(`/users/${created.json.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});
