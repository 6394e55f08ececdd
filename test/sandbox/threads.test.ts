import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, startTestSandbox, type Body, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo' });
});
afterAll(() => t.close());

const send = (path: string, body: Body) => t.call(path, { method: 'POST', body });
const bodies = (reply: { json: Body }) => reply.json._embedded.messages.map((m: { body: string }) => m.body);

describe('reply threads (decisions.md "Threads")', () => {
  it('every message offers its reply thread; replies go there in order, one level down, and raise repliesCount', async () => {
    const root = (await send('/channels/1/messages', { type: 'TEXT', body: 'root', user: { username: 'alice' } })).json;
    const threadId = 2 * root.id + 1;
    expect(root._links.replies).toEqual({ href: `${t.url}/threads/${threadId}` });

    const thread = await t.call(`/threads/${threadId}`);
    expect(thread.status).toBe(200);
    expect(thread.json).toEqual({
      id: threadId,
      type: 'MESSAGE',
      properties: {},
      createdTime: root.createdTime,
      _links: {
        self: { href: `${t.url}/threads/${threadId}` },
        messages: { href: `${t.url}/threads/${threadId}/messages` },
        channel: { href: `${t.url}/channels/1` },
        parent: { href: `${t.url}/messages/${root.id}` },
      },
    });

    const first = await send(`/threads/${threadId}/messages`, { type: 'TEXT', body: 'reply 1', user: { username: 'bob' } });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      id: first.json.id,
      type: 'TEXT',
      nestedLevel: 1,
      channelId: 1,
      user: expect.objectContaining({ name: 'bob' }),
      body: 'reply 1',
      repliesCount: 0,
      createdTime: expect.stringMatching(ISO),
      _links: { self: { href: `${t.url}/messages/${first.json.id}` }, channel: { href: `${t.url}/channels/1` }, replies: { href: `${t.url}/threads/${2 * first.json.id + 1}` } },
    });
    await send(`/threads/${threadId}/messages`, { type: 'TEXT', body: 'reply 2', user: { username: 'carol' }, properties: { k: 'r2' } });
    await send(`/threads/${threadId}/messages`, { type: 'SYSTEM_TEXT', body: 'reply 3' });

    expect(bodies(await t.call(`/threads/${threadId}/messages`))).toEqual(['reply 1', 'reply 2', 'reply 3']);
    expect((await t.call(`/messages/${root.id}`)).json.repliesCount).toBe(3);
    // Replies are in their thread, not among the channel's own messages; /messages lists all of them.
    expect(bodies(await t.call('/channels/1/messages?size=100'))).not.toContain('reply 1');
    expect(bodies(await t.call('/messages?size=100'))).toEqual(expect.arrayContaining(['root', 'reply 1', 'reply 2', 'reply 3']));

    // A reply to a reply is one level further down.
    const nested = await send(`/threads/${2 * first.json.id + 1}/messages`, { type: 'TEXT', body: 'deeper', user: { username: 'alice' } });
    expect(nested.json.nestedLevel).toBe(2);
  });

  it('thread message lists are cursor pages in list order', async () => {
    const root = (await send('/channels/1/messages', { type: 'TEXT', body: 'paged', user: { username: 'alice' } })).json;
    const threadId = 2 * root.id + 1;
    for (let i = 1; i <= 5; i++) await send(`/threads/${threadId}/messages`, { type: 'TEXT', body: `p${i}`, user: { username: 'bob' } });
    const seen: string[] = [];
    let page = await t.call(`/threads/${threadId}/messages?size=2`);
    for (;;) {
      seen.push(...bodies(page));
      const next = page.json._links.next?.href;
      if (!next) break;
      page = await t.call(next);
    }
    expect(seen).toEqual(['p1', 'p2', 'p3', 'p4', 'p5']);
  });

  it("a channel's MAIN thread lists and takes the channel's messages", async () => {
    const main = await t.call('/threads/2');
    expect(main.json).toMatchObject({ id: 2, type: 'MAIN', _links: { channel: { href: `${t.url}/channels/1` } } });
    expect(main.json._links.parent).toBeUndefined();
    const sent = await send('/threads/2/messages', { type: 'TEXT', body: 'via main', user: { username: 'alice' } });
    expect(sent.json).toMatchObject({ nestedLevel: 0, channelId: 1 });
    expect(bodies(await t.call('/channels/1/messages?size=100'))).toContain('via main');
  });

  it('DELETE /messages/{id} of a reply answers its thread; of a root, deletes its replies too', async () => {
    const root = (await send('/channels/1/messages', { type: 'TEXT', body: 'to delete', user: { username: 'alice' } })).json;
    const threadId = 2 * root.id + 1;
    const reply = (await send(`/threads/${threadId}/messages`, { type: 'TEXT', body: 'r', user: { username: 'bob' } })).json;
    const other = (await send(`/threads/${threadId}/messages`, { type: 'TEXT', body: 'r2', user: { username: 'bob' } })).json;
    const deleted = await t.call(`/messages/${reply.id}`, { method: 'DELETE' });
    expect(deleted.json).toMatchObject({ id: threadId, type: 'MESSAGE' });
    expect((await t.call(`/messages/${root.id}`)).json.repliesCount).toBe(1);
    await t.call(`/messages/${root.id}`, { method: 'DELETE' });
    expect((await t.call(`/messages/${other.id}`)).status).toBe(404);
    expect((await t.call(`/threads/${threadId}`)).status).toBe(404);
  });

  it('scopes, unknown threads and bad bodies', async () => {
    const narrow = t.sandbox.issueToken({ scopes: ['read:thread'] });
    const denied = await t.call('/threads/2/messages', { token: narrow });
    expect(denied.status).toBe(403);
    expect(denied.json).toEqual({ error: 'access_denied', error_description: 'access is denied' });
    const noSend = await t.call('/threads/2/messages', { method: 'POST', token: narrow, body: { type: 'TEXT', body: 'x' } });
    expect(noSend.status).toBe(403);
    expect((await t.call('/threads/999999')).status).toBe(404);
    expect((await t.call('/threads/999999/messages')).status).toBe(404);
    expect((await send('/threads/2/messages', { type: 'TEXT' })).status).toBe(400);
    expect((await t.call('/threads/abc')).status).toBe(400);
  });
});

describe('threads persist with --data', () => {
  it('replies are still in their thread after a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'chatport-threads-'));
    const first = await startTestSandbox({ seed: 'demo', dataDir });
    const root = (await first.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'kept', user: { username: 'alice' } } })).json;
    await first.call(`/threads/${2 * root.id + 1}/messages`, { method: 'POST', body: { type: 'TEXT', body: 'kept reply', user: { username: 'bob' } } });
    await first.close();
    const second = await startTestSandbox({ dataDir });
    try {
      expect(bodies(await second.call(`/threads/${2 * root.id + 1}/messages`))).toEqual(['kept reply']);
      expect((await second.call(`/messages/${root.id}`)).json.repliesCount).toBe(1);
    } finally {
      await second.close();
    }
  });
});
