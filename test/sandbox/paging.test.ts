import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type Reply, type TestSandbox } from './helpers.js';

let t: TestSandbox;
let channelId: number;
beforeAll(async () => {
  t = await startTestSandbox();
  const users = Array.from({ length: 7 }, (_, i) => ({ name: `u${i}`, displayName: `User ${6 - i}`, isGuest: false, properties: {} }));
  await t.waitJob((await t.upload('/imports/users', users)).json.id);
  channelId = (await t.call('/channels', { method: 'POST', body: { type: 'PUBLIC', name: 'paged' } })).json.id;
  const messages = Array.from({ length: 12 }, (_, i) => ({ type: 'TEXT', channelId, user: `u${i % 2}`, body: `message ${i}` }));
  await t.waitJob((await t.upload('/imports/messages', messages)).json.id);
});
afterAll(() => t.close());

const clientError = { error: 'ClientError', message: expect.any(String), timestamp: expect.any(String) };

describe('offset pages', () => {
  it('answers the envelope with page numbers and first/prev/self/next/last links', async () => {
    const reply = await t.call('/users?page=1&size=3');
    expect(reply.status).toBe(200);
    expect(reply.json.page).toEqual({ size: 3, totalElements: 7, totalPages: 3, number: 1 });
    expect(reply.json._embedded.users.map((u: { name: string }) => u.name)).toEqual(['u3', 'u4', 'u5']);
    const links = reply.json._links;
    expect(links.first.href).toBe(`${t.url}/users?page=0&size=3`);
    expect(links.prev.href).toBe(`${t.url}/users?page=0&size=3`);
    expect(links.self.href).toBe(`${t.url}/users?page=1&size=3`);
    expect(links.next.href).toBe(`${t.url}/users?page=2&size=3`);
    expect(links.last.href).toBe(`${t.url}/users?page=2&size=3`);
  });

  it('defaults to page 0 and size 25, and the last page has no next', async () => {
    const reply = await t.call('/users');
    expect(reply.json.page).toEqual({ size: 25, totalElements: 7, totalPages: 1, number: 0 });
    expect(reply.json._links.next).toBeUndefined();
    expect(reply.json._links.prev).toBeUndefined();
  });

  it('answers a page past the end with an empty array and a true page object', async () => {
    const reply = await t.call('/users?page=5&size=3');
    expect(reply.status).toBe(200);
    expect(reply.json._embedded).toEqual({ users: [] });
    expect(reply.json.page).toEqual({ size: 3, totalElements: 7, totalPages: 3, number: 5 });
    expect(reply.json._links.next).toBeUndefined();
    expect(reply.json._links.last.href).toBe(`${t.url}/users?page=2&size=3`);
  });

  it('keeps filters in the links', async () => {
    const reply = await t.call('/users?name=u1&size=1');
    expect(reply.json._links.self.href).toBe(`${t.url}/users?name=u1&size=1&page=0`);
  });

  it.each([
    ['size=0', /size/],
    ['size=101', /size/],
    ['page=-1', /page/],
    ['size=abc', /size/],
    ['sort=nope,asc', /sort/],
    ['sort=name,sideways', /sort/],
  ])('answers %s with 400 ClientError', async (query, field) => {
    const reply = await t.call(`/users?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual(clientError);
    expect(reply.json.message).toMatch(field);
  });

  it('accepts size 1 and 100, and sorts by property and direction', async () => {
    expect((await t.call('/users?size=1')).json._embedded.users).toHaveLength(1);
    expect((await t.call('/users?size=100')).status).toBe(200);
    const sorted = await t.call('/users?sort=displayName,asc&size=2');
    expect(sorted.json._embedded.users.map((u: { displayName: string }) => u.displayName)).toEqual(['User 0', 'User 1']);
    const desc = await t.call('/users?sort=id,desc&size=2');
    expect(desc.json._embedded.users.map((u: { name: string }) => u.name)).toEqual(['u6', 'u5']);
  });
});

describe('cursor pages (messages)', () => {
  it('walks forward and back through links only', async () => {
    const first = await t.call(`/channels/${channelId}/messages?size=5`);
    expect(first.status).toBe(200);
    expect(first.json.page).toEqual({ size: 5 });
    expect(first.json._embedded.messages.map((m: { body: string }) => m.body)).toEqual(['message 0', 'message 1', 'message 2', 'message 3', 'message 4']);
    expect(first.json._links.prev).toBeUndefined();
    const selfUrl = new URL(first.json._links.self.href);
    expect(selfUrl.searchParams.get('relation')).toBe('SELF');
    const seen: string[] = [];
    let href: string | undefined = first.json._links.self.href;
    while (href) {
      const page: Reply = await t.call(href);
      seen.push(...page.json._embedded.messages.map((m: { body: string }) => m.body));
      href = page.json._links.next?.href;
      if (href) expect(new URL(href).searchParams.get('relation')).toBe('NEXT');
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `message ${i}`));
    const second = await t.call(first.json._links.next.href);
    const back = await t.call(second.json._links.prev.href);
    expect(new URL(second.json._links.prev.href).searchParams.get('relation')).toBe('PREVIOUS');
    expect(back.json._embedded.messages).toEqual(first.json._embedded.messages);
  });

  it('filters by username and query text, keeping filters in the links', async () => {
    const reply = await t.call(`/channels/${channelId}/messages?username=u1&size=2`);
    expect(reply.json._embedded.messages.map((m: { body: string }) => m.body)).toEqual(['message 1', 'message 3']);
    const next = await t.call(reply.json._links.next.href);
    expect(next.json._embedded.messages.map((m: { body: string }) => m.body)).toEqual(['message 5', 'message 7']);
    const query = await t.call(`/messages?query=MESSAGE%201`);
    expect(query.json._embedded.messages.map((m: { body: string }) => m.body)).toEqual(['message 1', 'message 10', 'message 11']);
  });

  it('rejects bad cursor parameters with 400', async () => {
    for (const q of ['size=0', 'size=101', 'start=abc', 'relation=SIDEWAYS', 'relation=NEXT']) {
      const reply = await t.call(`/messages?${q}`);
      expect(reply.status, q).toBe(400);
      expect(reply.json).toEqual(clientError);
    }
  });
});
