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
const notifications = async (userId: number) => (await t.call(`/users/${userId}/notifications?size=100`)).json._embedded.notifications as Body[];

describe('mentions (decisions.md "Enumerations")', () => {
  it('the server fills them: @name of an existing user, @channel and @here; UTF-16 positions', async () => {
    const sent = await send('/channels/1/messages', { type: 'TEXT', body: '😀 @bob and @nobody, @here!', user: { username: 'alice' } });
    expect(sent.json.mentions).toEqual([
      { type: 'USER', tag: '@bob', startPosition: 3, endPosition: 7, user: expect.objectContaining({ id: 2, name: 'bob' }) },
      { type: 'CHANNEL', tag: '@here', startPosition: 21, endPosition: 26 },
    ]);
    expect((await send('/channels/1/messages', { type: 'TEXT', body: 'mail me at a@bob', user: { username: 'alice' } })).json.mentions).toBeUndefined();
  });
});

describe('notifications (decisions.md "Sessions, notifications, read receipts")', () => {
  it('a message sent through the API notifies every other member, newest first; the sender gets none', async () => {
    const before = (await notifications(3)).length;
    const sent = await send('/channels/1/messages', { type: 'TEXT', body: 'standup in 5', user: { username: 'alice' } });
    const [newest] = await notifications(3);
    expect(newest).toEqual({
      id: newest.id,
      title: 'Alice Archer',
      body: 'standup in 5',
      channel: expect.objectContaining({ id: 1, name: 'general' }),
      data: { type: 'USER:SENT:MESSAGE', message: expect.objectContaining({ id: sent.json.id, body: 'standup in 5' }), channelId: 1, recipient: expect.objectContaining({ id: 3, name: 'carol' }) },
      muted: false,
      createdTime: expect.stringMatching(ISO),
      _links: { user: { href: `${t.url}/users/3` }, notifications: { href: `${t.url}/users/3/notifications` } },
    });
    expect(await notifications(3)).toHaveLength(before + 1);
    expect((await notifications(1)).some((n) => n.data.message?.id === sent.json.id)).toBe(false);
  });

  it('types: a mention, a reply, a system message', async () => {
    await send('/channels/1/messages', { type: 'TEXT', body: 'ping @carol', user: { username: 'bob' } });
    expect((await notifications(3))[0].data.type).toBe('USER:MENTIONED:USER');
    expect((await notifications(1))[0].data.type).toBe('USER:SENT:MESSAGE');
    const root = (await send('/channels/1/messages', { type: 'TEXT', body: 'root', user: { username: 'alice' } })).json;
    await send(`/threads/${2 * root.id + 1}/messages`, { type: 'TEXT', body: 'a reply', user: { username: 'bob' } });
    expect((await notifications(1))[0].data.type).toBe('USER:REPLIED_TO:MESSAGE');
    await send('/channels/1/messages', { type: 'SYSTEM_TEXT', body: 'maintenance tonight' });
    expect((await notifications(1))[0]).toMatchObject({ title: 'sandbox', data: { type: 'SYSTEM:SENT:MESSAGE' } });
  });

  it('an import notifies no one', async () => {
    const before = (await notifications(2)).length;
    const job = await t.upload('/imports/messages', [{ type: 'TEXT', channelId: 1, body: 'imported', user: 'alice', idempotencyKey: 'notify-test-1' }]);
    expect((await t.waitJob(job.json.id)).state).toBe('FINISHED');
    expect(await notifications(2)).toHaveLength(before);
  });

  it('newest first across cursor pages; 404 for an unknown user; scopes', async () => {
    const all = await notifications(2);
    const paged: Body[] = [];
    let page = await t.call('/users/2/notifications?size=2');
    for (;;) {
      paged.push(...page.json._embedded.notifications);
      const next = page.json._links.next?.href;
      if (!next) break;
      page = await t.call(next);
    }
    expect(paged.map((n) => n.id)).toEqual(all.map((n) => n.id));
    expect([...all.map((n) => n.id)].sort((a, b) => b - a)).toEqual(all.map((n) => n.id));
    expect((await t.call('/users/999/notifications')).status).toBe(404);
    expect((await t.call('/users/2/notifications', { token: t.sandbox.issueToken({ scopes: ['read:user'] }) })).status).toBe(403);
  });
});

describe('notifications of deleted messages (§6.4: data carries the message)', () => {
  it('go with their message: deleted alone, with its thread, with its channel, or all at once; also after a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'chatport-notif-'));
    const s = await startTestSandbox({ seed: 'demo', dataDir });
    const feed = async (box: TestSandbox, userId: number) => (await box.call(`/users/${userId}/notifications?size=100`)).json._embedded.notifications as Body[];
    const messageIds = async (box: TestSandbox, userId: number) => (await feed(box, userId)).map((n) => n.data.message?.id as number | undefined);
    const say = async (path: string, body: string, username: string) =>
      (await s.call(path, { method: 'POST', body: { type: 'TEXT', body, user: { username } } })).json.id as number;
    try {
      const kept = await say('/channels/1/messages', 'kept', 'alice');
      const root = await say('/channels/1/messages', 'root', 'alice');
      const reply = await say(`/threads/${2 * root + 1}/messages`, 'reply', 'bob');
      const inData = await say('/channels/2/messages', 'data team', 'bob');
      expect(await messageIds(s, 3)).toEqual([inData, reply, root, kept]);
      expect((await s.call(`/messages/${root}`, { method: 'DELETE' })).status).toBe(200);
      expect(await messageIds(s, 3)).toEqual([inData, kept]);
      expect(await messageIds(s, 1)).toEqual([]);
      expect((await s.call('/channels/2', { method: 'DELETE' })).status).toBe(200);
      expect(await messageIds(s, 3)).toEqual([kept]);
      await s.close();
      const again = await startTestSandbox({ dataDir });
      try {
        expect(await messageIds(again, 3)).toEqual([kept]);
        expect((await again.call('/messages', { method: 'DELETE' })).status).toBe(200);
        expect(await feed(again, 3)).toEqual([]);
        expect(await feed(again, 2)).toEqual([]);
      } finally {
        await again.close();
      }
    } finally {
      await s.close();
    }
  });
});

describe('read receipts', () => {
  it('POST /_sandbox/messages/{id}/read marks a message read; receipts, summaries and unread messages follow', async () => {
    const sent = (await send('/channels/1/messages', { type: 'TEXT', body: 'read me', user: { username: 'alice' } })).json;
    expect((await t.call(`/users/2/messages?unread=true&size=100`)).json._embedded.messages.map((m: Body) => m.id)).toContain(sent.id);

    const read = await send(`/_sandbox/messages/${sent.id}/read`, { username: 'bob' });
    expect(read.status).toBe(200);
    expect(read.json).toEqual({
      user: expect.objectContaining({ id: 2, name: 'bob' }),
      createdTime: expect.stringMatching(ISO),
      _links: { message: { href: `${t.url}/messages/${sent.id}` }, user: { href: `${t.url}/users/2` } },
    });
    await send(`/_sandbox/messages/${sent.id}/read`, { username: 'carol' });
    // Reading again changes nothing.
    expect((await send(`/_sandbox/messages/${sent.id}/read`, { username: 'bob' })).json.createdTime).toBe(read.json.createdTime);

    const receipts = await t.call(`/messages/${sent.id}/read-receipts`);
    expect(receipts.json._embedded.receipts.map((r: Body) => r.user.name)).toEqual(['bob', 'carol']);
    expect(receipts.json.page).toEqual({ size: 25, totalElements: 2, totalPages: 1, number: 0 });

    const summaries = await t.call('/application/message-read-receipt-summaries?size=100');
    expect(summaries.json._embedded.summaries).toContainEqual({
      messageId: sent.id,
      channelId: 1,
      readCount: 2,
      lastReadTime: expect.stringMatching(ISO),
      _links: { message: { href: `${t.url}/messages/${sent.id}` }, receipts: { href: `${t.url}/messages/${sent.id}/read-receipts` } },
    });
    expect((await t.call(`/users/2/messages?unread=true&size=100`)).json._embedded.messages.map((m: Body) => m.id)).not.toContain(sent.id);
    // `unread` is a boolean (§4) like every other one: any other value is a §7 400, not the list of own messages.
    for (const value of ['maybe', 'yes']) expect((await t.call(`/users/2/messages?unread=${value}`)).json).toMatchObject({ error: 'ClientError', message: expect.stringContaining("'unread'") });
    expect((await t.call(`/users/2/messages?unread=false&size=100`)).json._embedded.messages.every((m: Body) => m.user?.name === 'bob')).toBe(true);
    // Alice's own message is never unread for her.
    expect((await t.call(`/users/1/messages?unread=true&size=100`)).json._embedded.messages.map((m: Body) => m.id)).not.toContain(sent.id);
  });

  it('refuses a non-member, an unknown user and an unknown message; needs read:read_receipt', async () => {
    const sent = (await send('/channels/2/messages', { type: 'TEXT', body: 'team only', user: { username: 'bob' } })).json;
    expect((await send(`/_sandbox/messages/${sent.id}/read`, { username: 'alice' })).status).toBe(400);
    expect((await send(`/_sandbox/messages/${sent.id}/read`, { username: 'ghost' })).status).toBe(400);
    expect((await send('/_sandbox/messages/999999/read', { username: 'bob' })).status).toBe(404);
    expect((await send(`/_sandbox/messages/${sent.id}/read`, {})).status).toBe(400);
    expect((await t.call(`/messages/${sent.id}/read-receipts`, { token: t.sandbox.issueToken({ scopes: ['read:message'] }) })).status).toBe(403);
    expect((await send(`/_sandbox/messages/${sent.id}/read`, { username: 'bob' })).status).toBe(200);
  });
});

describe('keystrokes', () => {
  it('channel and thread keystrokes echo the keys with the username; the user must be a member', async () => {
    const k = await t.call('/channels/1/keystrokes', { method: 'POST', body: { keys: 'typ', user: { username: 'alice' } }, headers: { 'content-type': 'application/json' } });
    expect(k.status).toBe(200);
    expect(k.json).toEqual({ keys: 'typ', username: 'alice', _links: { channel: { href: `${t.url}/channels/1` } } });
    const thread = await t.call('/threads/2/keystrokes', { method: 'POST', body: { keys: 'x', user: { id: 2 } } });
    expect(thread.json).toEqual({ keys: 'x', username: 'bob', _links: { thread: { href: `${t.url}/threads/2` }, channel: { href: `${t.url}/channels/1` } } });
    expect((await t.call('/channels/2/keystrokes', { method: 'POST', body: { keys: 'x', user: { username: 'alice' } } })).status).toBe(400);
    expect((await t.call('/channels/1/keystrokes', { method: 'POST', body: { keys: '', user: { username: 'alice' } } })).status).toBe(400);
    expect((await t.call('/channels/1/keystrokes', { method: 'POST', token: t.sandbox.issueToken({ scopes: ['read:channel', 'read:user'] }), body: { keys: 'a', user: { id: 1 } } })).status).toBe(403);
  });
});

describe('DELETE /messages', () => {
  it('deletes every message of the application, replies included, and answers the Application', async () => {
    const other = await startTestSandbox({ seed: 'demo' });
    try {
      const root = (await other.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'r', user: { username: 'alice' } } })).json;
      await other.call(`/threads/${2 * root.id + 1}/messages`, { method: 'POST', body: { type: 'TEXT', body: 'reply', user: { username: 'bob' } } });
      const deleted = await other.call('/messages', { method: 'DELETE' });
      expect(deleted.status).toBe(200);
      expect(deleted.json).toMatchObject({ id: 1, name: 'sandbox' });
      expect((await other.call('/messages')).json._embedded.messages).toEqual([]);
      expect((await other.call('/channels/1/messages')).json._embedded.messages).toEqual([]);
      expect((await other.call('/messages', { method: 'DELETE', token: other.sandbox.issueToken({ scopes: ['read:message'] }) })).status).toBe(403);
    } finally {
      await other.close();
    }
  });
});

describe('file messages (multipart, decisions.md "Enumerations")', () => {
  const form = (parts: Record<string, string | Blob>, filename = 'notes.txt') => {
    const data = new FormData();
    for (const [k, v] of Object.entries(parts)) if (typeof v === 'string') data.append(k, v);
    else data.append(k, v, filename);
    return data;
  };
  const sendForm = (path: string, data: FormData) => fetch(`${t.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` }, body: data });

  it('a FILE message sent as multipart is stored HOSTED and downloads without the token, byte for byte', async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
    const res = await sendForm('/channels/1/messages', form({ file: new Blob([bytes], { type: 'application/octet-stream' }), username: 'alice', groupTag: 'album', properties: '{"k":1}' }, 'data.bin'));
    expect(res.status).toBe(200);
    const message = (await res.json()) as Body;
    expect(message).toMatchObject({
      type: 'FILE',
      user: expect.objectContaining({ name: 'alice' }),
      groupTag: 'album',
      properties: { k: 1 },
      file: { type: 'HOSTED', name: 'data.bin', contentType: 'application/octet-stream', size: 70_000, url: expect.stringMatching(new RegExp(`^${t.url}/_files/[0-9a-f]{32}/data\\.bin$`)) },
    });
    const download = await fetch(message.file.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
    expect((await fetch(message.file.url.replace(/[0-9a-f]{32}/, '0'.repeat(32)))).status).toBe(404);
    expect((await fetch(message.file.url.replace('data.bin', 'other.bin'))).status).toBe(404);
  });

  it('without a user it is SYSTEM_FILE; into a thread too; a JSON file object with a url is EXTERNAL; bad parts are refused', async () => {
    const system = (await (await sendForm('/channels/1/messages', form({ file: new Blob(['hello'], { type: 'text/plain' }) }))).json()) as Body;
    expect(system).toMatchObject({ type: 'SYSTEM_FILE', file: { type: 'HOSTED', name: 'notes.txt', contentType: 'text/plain', size: 5 } });
    expect(system.user).toBeUndefined();
    const reply = (await (await sendForm(`/threads/${2 * system.id + 1}/messages`, form({ file: new Blob(['r']), username: 'bob' }))).json()) as Body;
    expect(reply).toMatchObject({ type: 'FILE', nestedLevel: 1 });
    const external = await send('/channels/1/messages', { type: 'FILE', user: { username: 'alice' }, file: { name: 'x.pdf', contentType: 'application/pdf', size: 10, url: 'https://files.example.invalid/x.pdf' } });
    expect(external.json.file).toEqual({ type: 'EXTERNAL', name: 'x.pdf', contentType: 'application/pdf', size: 10, url: 'https://files.example.invalid/x.pdf' });
    expect((await sendForm('/channels/1/messages', form({ username: 'alice' }))).status).toBe(400);
    expect((await sendForm('/channels/1/messages', form({ file: new Blob(['x']), properties: '[1]' }))).status).toBe(400);
    expect((await sendForm('/channels/1/messages', form({ file: new Blob(['x']), username: 'ghost' }))).status).toBe(400);
  });

  it('takes exactly one part named file: a second is a 400 and sends nothing; another file part is ignored', async () => {
    const before = (await t.call('/channels/1/messages?size=100')).json._embedded.messages.length;
    const two = new FormData();
    two.append('file', new Blob(['first']), 'first.txt');
    two.append('file', new Blob(['second']), 'second.txt');
    const refused = await sendForm('/channels/1/messages', two);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: 'ClientError', message: expect.any(String), timestamp: expect.any(String) });
    expect((await t.call('/channels/1/messages?size=100')).json._embedded.messages).toHaveLength(before);
    const otherFirst = new FormData();
    otherFirst.append('attachment', new Blob(['ignored']), 'ignored.txt');
    otherFirst.append('file', new Blob(['kept']), 'kept.txt');
    const sent = await sendForm('/channels/1/messages', otherFirst);
    expect(sent.status).toBe(200);
    expect(((await sent.json()) as Body).file).toMatchObject({ name: 'kept.txt', size: 4 });
  });
});
