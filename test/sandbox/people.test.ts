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

const post = (path: string, body: Body, init: { token?: string } = {}) => t.call(path, { method: 'POST', body, ...init });
const names = (reply: { json: Body }, kind = 'users') => reply.json._embedded[kind].map((x: { name: string }) => x.name);
const narrow = (...scopes: string[]) => t.sandbox.issueToken({ scopes });

describe('sessions through /_sandbox/, presence and participants', () => {
  it('a user session makes the user AVAILABLE; a chat session makes them a participant; ending undoes both', async () => {
    expect((await t.call('/users/1')).json.presence).toEqual({ status: 'UNAVAILABLE', online: false });
    const started = await post('/_sandbox/user-sessions', { username: 'alice', userAgent: 'rehearsal/1.0' });
    expect(started.status).toBe(201);
    expect(started.json).toEqual({
      id: started.json.id,
      user: expect.objectContaining({ id: 1, name: 'alice', presence: { status: 'AVAILABLE', online: true } }),
      state: 'ACTIVE',
      userAgent: 'rehearsal/1.0',
      createdTime: expect.stringMatching(ISO),
      _links: { user: { href: `${t.url}/users/1` } },
    });
    expect((await t.call('/users/1')).json.presence).toEqual({ status: 'AVAILABLE', online: true });

    const chat = await post('/_sandbox/chat-sessions', { userSessionId: started.json.id, channelId: 1 });
    expect(chat.status).toBe(201);
    expect(chat.json).toMatchObject({ state: 'ACTIVE', session: { id: started.json.id }, _links: { channel: { href: `${t.url}/channels/1` } } });
    expect(names(await t.call('/channels/1/participants'))).toEqual(['alice']);

    expect((await t.call('/chat-sessions?state=ACTIVE')).json._embedded.sessions.map((s: Body) => s.id)).toContain(chat.json.id);
    expect((await t.call('/user-sessions?state=ACTIVE')).json._embedded.sessions.map((s: Body) => s.id)).toContain(started.json.id);

    const ended = await post(`/_sandbox/user-sessions/${started.json.id}/end`, {});
    expect(ended.json).toMatchObject({ state: 'ENDED', endTime: expect.stringMatching(ISO) });
    expect((await t.call('/users/1')).json.presence).toEqual({ status: 'UNAVAILABLE', online: false });
    expect(names(await t.call('/channels/1/participants'))).toEqual([]);
    expect((await t.call(`/chat-sessions?state=ENDED`)).json._embedded.sessions.map((s: Body) => s.id)).toContain(chat.json.id);
  });

  it("a member removed from a channel has their chat sessions in it ENDED (a chat session needs membership to start)", async () => {
    const session = (await post('/_sandbox/user-sessions', { username: 'carol' })).json.id;
    const inData = (await post('/_sandbox/chat-sessions', { userSessionId: session, channelId: 2 })).json.id;
    const inGeneral = (await post('/_sandbox/chat-sessions', { userSessionId: session, channelId: 1 })).json.id;
    expect((await t.call('/channels/2/members/3', { method: 'DELETE' })).status).toBe(200);
    const ended = (await t.call('/chat-sessions?state=ENDED&size=100')).json._embedded.sessions.find((x: Body) => x.id === inData);
    expect(ended).toMatchObject({ state: 'ENDED', endTime: expect.stringMatching(ISO) });
    expect((await t.call('/chat-sessions?state=ACTIVE&size=100')).json._embedded.sessions.map((x: Body) => x.id)).toContain(inGeneral);
    await post('/channels/2/members', { username: 'carol' });
    await post(`/_sandbox/user-sessions/${session}/end`, {});
  });

  it('refuses unknown users, ended sessions, non-members, a bad state filter; lists need their scopes', async () => {
    expect((await post('/_sandbox/user-sessions', { username: 'ghost' })).status).toBe(400);
    const s = (await post('/_sandbox/user-sessions', { username: 'alice' })).json;
    expect((await post('/_sandbox/chat-sessions', { userSessionId: s.id, channelId: 2 })).status).toBe(400);
    await post(`/_sandbox/user-sessions/${s.id}/end`, {});
    expect((await post('/_sandbox/chat-sessions', { userSessionId: s.id, channelId: 1 })).status).toBe(400);
    expect((await post('/_sandbox/user-sessions/999999/end', {})).status).toBe(404);
    expect((await t.call('/user-sessions?state=SLEEPING')).status).toBe(400);
    expect((await t.call('/user-sessions', { token: narrow('read:chat_session') })).status).toBe(403);
    expect((await t.call('/chat-sessions', { token: narrow('read:user_session') })).status).toBe(403);
    expect((await t.call('/channels/1/participants', { token: narrow('read:channel') })).status).toBe(403);
    expect((await t.call('/_sandbox/user-sessions', { method: 'POST', body: { username: 'alice' }, token: null })).status).toBe(401);
  });
});

describe('channel administration', () => {
  it('moderators: a member can be made one, listed, and removed', async () => {
    const made = await post('/channels/1/moderators', { username: 'bob' });
    expect(made.status).toBe(200);
    expect(made.json).toMatchObject({ id: 2, name: 'bob' });
    expect(names(await t.call('/channels/1/moderators'))).toEqual(['bob']);
    expect((await post('/channels/2/moderators', { username: 'alice' })).status).toBe(400);
    const removed = await t.call('/channels/1/moderators/2', { method: 'DELETE' });
    expect(removed.json).toMatchObject({ id: 1, name: 'general' });
    expect(names(await t.call('/channels/1/moderators'))).toEqual([]);
    expect((await t.call('/channels/1/moderators/2', { method: 'DELETE' })).status).toBe(404);
    expect((await post('/channels/1/moderators', { username: 'bob' }, { token: narrow('read:channel', 'read:user', 'create:channel_moderator') })).status).toBe(403);
  });

  it('moderators: the body is a user reference (§4), by id too; the invite-shaped {user} is a 400', async () => {
    expect((await post('/channels/1/moderators', { id: 3 })).json).toMatchObject({ id: 3, name: 'carol' });
    const wrapped = await post('/channels/1/moderators', { user: { username: 'bob' } });
    expect(wrapped.status).toBe(400);
    expect(wrapped.json).toEqual({ error: 'ClientError', message: expect.stringMatching(/^a client error occurred/), timestamp: expect.stringMatching(ISO) });
    expect(names(await t.call('/channels/1/moderators'))).toEqual(['carol']);
    await t.call('/channels/1/moderators/3', { method: 'DELETE' });
  });

  it('moderators apply to group channels (§4 "Adding and removing members and moderators applies to group channels"): a DIRECT channel is a 400', async () => {
    const made = await post('/channels/3/moderators', { username: 'alice' });
    expect(made.status, made.text).toBe(400);
    expect(made.json.message).toContain('DIRECT');
    expect((await t.call('/channels/3/moderators')).json.page.totalElements).toBe(0);
    expect((await t.call('/channels/3/moderators/1', { method: 'DELETE' })).status).toBe(400);
  });

  it('a moderator removed from the members is no longer a moderator (a moderator is a member: POST moderators refuses others)', async () => {
    await post('/channels/1/moderators', { username: 'carol' });
    expect((await t.call('/channels/1/members/3', { method: 'DELETE' })).status).toBe(200);
    expect(names(await t.call('/channels/1/moderators'))).toEqual([]);
    await post('/channels/1/members', { username: 'carol' });
    expect(names(await t.call('/channels/1/moderators'))).toEqual([]);
  });

  it('an invited user who joins is no longer listed as invited (invites are for non-members: POST invites refuses a member)', async () => {
    const erin = (await post('/users', { name: 'erin', displayName: 'Erin', isGuest: false })).json.id as number;
    await post('/channels/1/invites', { user: { id: erin } });
    expect((await t.call('/channels/1/invites')).json.page.totalElements).toBe(1);
    await post('/channels/1/members', { id: erin });
    expect((await t.call('/channels/1/invites')).json._embedded.invites).toEqual([]);
  });

  it('invites: a non-member is invited once; listed with links to channel and user', async () => {
    const invited = await post('/channels/2/invites', { user: { username: 'alice' } });
    expect(invited.status).toBe(200);
    expect(invited.json).toEqual({
      createdTime: expect.stringMatching(ISO),
      _links: { self: { href: `${t.url}/channels/2/invites` }, channel: { href: `${t.url}/channels/2` }, user: { href: `${t.url}/users/1` } },
    });
    const again = await post('/channels/2/invites', { user: { id: 1 } });
    expect(again.json.createdTime).toBe(invited.json.createdTime);
    const list = await t.call('/channels/2/invites');
    expect(list.json._embedded.invites).toEqual([invited.json]);
    expect(list.json.page).toEqual({ size: 25, totalElements: 1, totalPages: 1, number: 0 });
    expect((await post('/channels/2/invites', { user: { username: 'bob' } })).status).toBe(400);
    expect((await post('/channels/3/invites', { user: { username: 'carol' } })).status).toBe(400);
    expect((await post('/channels/2/invites', {})).status).toBe(400);
  });

  it('channel events: a custom type and properties, answered with the user', async () => {
    const event = await post('/channels/1/events', { type: 'poll.closed', properties: { votes: 3 }, user: { username: 'carol' } });
    expect(event.status).toBe(200);
    expect(event.json).toEqual({
      type: 'poll.closed',
      user: expect.objectContaining({ name: 'carol' }),
      properties: { votes: 3 },
      _links: { channel: { href: `${t.url}/channels/1` } },
    });
    expect((await post('/channels/1/events', { type: 'x' })).status).toBe(400);
    expect((await post('/channels/999/events', { type: 'x', properties: {} })).status).toBe(404);
    expect((await post('/channels/1/events', { type: 'x', properties: {} }, { token: narrow('read:channel') })).status).toBe(403);
  });
});

describe('users: secrets, display picture, full PUT', () => {
  it('a secret is set, read, replaced and deleted; it needs its own scope to be read', async () => {
    expect((await t.call('/users/2/secrets/api-key')).status).toBe(404);
    const set = await t.call('/users/2/secrets/api-key', { method: 'PUT', body: { secret: { token: 's3cr3t', n: 1 } } });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({ id: 2, name: 'bob' });
    const got = await t.call('/users/2/secrets/api-key');
    expect(got.json).toEqual({ secret: { token: 's3cr3t', n: 1 }, _links: { self: { href: `${t.url}/users/2/secrets/api-key` }, user: { href: `${t.url}/users/2` } } });
    await t.call('/users/2/secrets/api-key', { method: 'PUT', body: { secret: 'plain' } });
    expect((await t.call('/users/2/secrets/api-key')).json.secret).toBe('plain');
    // Any JSON value may be set (§2), null too; the answer then leaves the field out (wire rule 3: never null).
    expect((await t.call('/users/2/secrets/api-key', { method: 'PUT', body: { secret: null } })).status).toBe(200);
    expect((await t.call('/users/2/secrets/api-key')).json).toEqual({ _links: { self: { href: `${t.url}/users/2/secrets/api-key` }, user: { href: `${t.url}/users/2` } } });
    expect((await t.call('/users/2/secrets/api-key', { token: narrow('read:user') })).status).toBe(403);
    expect((await t.call('/users/2/secrets/api-key', { method: 'DELETE' })).json).toMatchObject({ id: 2 });
    expect((await t.call('/users/2/secrets/api-key')).status).toBe(404);
    expect((await t.call('/users/2/secrets/bad%20name', { method: 'PUT', body: { secret: 1 } })).status).toBe(400);
    expect((await t.call('/users/2/secrets/k', { method: 'PUT', body: {} })).status).toBe(400);
  });

  it('POST /users/{id}/display-picture with an external file sets displayPictureUrl', async () => {
    const updated = await post('/users/3/display-picture', { url: 'https://cdn.example.invalid/carol.png', name: 'carol.png', contentType: 'image/png', size: 1234 });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ displayPictureUrl: 'https://cdn.example.invalid/carol.png', _links: { displayPicture: { href: 'https://cdn.example.invalid/carol.png' } } });
    expect((await post('/users/3/display-picture', { url: 'x' })).status).toBe(400);

    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const data = new FormData();
    data.append('file', new Blob([png], { type: 'image/png' }), 'me.png');
    const uploaded = await fetch(`${t.url}/users/3/display-picture`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` }, body: data });
    expect(uploaded.status).toBe(200);
    const url = ((await uploaded.json()) as Body).displayPictureUrl as string;
    expect(url).toMatch(new RegExp(`^${t.url}/_files/[0-9a-f]{32}/me\\.png$`));
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(Buffer.from(png))).toBe(true);
    const text = new FormData();
    text.append('file', new Blob(['not an image'], { type: 'text/plain' }), 'x.txt');
    expect((await fetch(`${t.url}/users/3/display-picture`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` }, body: text })).status).toBe(400);
  });

  it('PUT /users/{id} replaces every field (the older revision)', async () => {
    const put = await t.call('/users/4', { method: 'PUT', body: { name: 'announcer', displayName: 'News', isGuest: false, properties: { team: 'comms' } } });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ name: 'announcer', displayName: 'News', properties: { team: 'comms' } });
    expect((await t.call('/users/4', { method: 'PUT', body: { name: 'alice', displayName: 'x', isGuest: false } })).status).toBe(400);
  });

  it('PUT /users/{id} sets displayPictureUrl, a field of the full User (§4 "full User"), and a PUT without it clears it', async () => {
    const full = { name: 'announcer', displayName: 'News', isGuest: false, properties: {} };
    const put = await t.call('/users/4', { method: 'PUT', body: { ...full, displayPictureUrl: 'https://cdn.example/news.png' } });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toMatchObject({ displayPictureUrl: 'https://cdn.example/news.png', _links: { displayPicture: { href: 'https://cdn.example/news.png' } } });
    expect((await t.call('/users/4')).json.displayPictureUrl).toBe('https://cdn.example/news.png');
    const cleared = await t.call('/users/4', { method: 'PUT', body: full });
    expect(cleared.json.displayPictureUrl).toBeUndefined();
    expect(cleared.json._links.displayPicture).toBeUndefined();
    expect((await t.call('/users/4', { method: 'PUT', body: { ...full, displayPictureUrl: '' } })).status).toBe(400);
  });
});

describe('the people area persists with --data', () => {
  it('sessions, moderators, invites and secrets survive a restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'chatport-people-'));
    const first = await startTestSandbox({ seed: 'demo', dataDir });
    const s = (await first.call('/_sandbox/user-sessions', { method: 'POST', body: { username: 'bob' } })).json;
    await first.call('/channels/1/moderators', { method: 'POST', body: { username: 'carol' } });
    await first.call('/channels/2/invites', { method: 'POST', body: { user: { username: 'alice' } } });
    await first.call('/users/1/secrets/pin', { method: 'PUT', body: { secret: 1234 } });
    await first.close();
    const second = await startTestSandbox({ dataDir });
    try {
      expect((await second.call(`/user-sessions`)).json._embedded.sessions.map((x: Body) => x.id)).toEqual([s.id]);
      expect((await second.call('/users/2')).json.presence.online).toBe(true);
      expect(names(await second.call('/channels/1/moderators'))).toEqual(['carol']);
      expect((await second.call('/channels/2/invites')).json._embedded.invites).toHaveLength(1);
      expect((await second.call('/users/1/secrets/pin')).json.secret).toBe(1234);
    } finally {
      await second.close();
    }
  });
});

describe('/_sandbox/chat-sessions under an id base beyond 2^53', () => {
  it('takes the int64 ids a client got back, as JSON numbers (decisions.md: {userSessionId, channelId})', async () => {
    const big = await startTestSandbox({ seed: 'demo', idBase: 2n ** 60n });
    try {
      // The helper's JSON.parse would round these ids, so they are read from the text.
      const idIn = (text: string) => /"id":(\d+)/.exec(text)![1]!;
      const session = await big.call('/_sandbox/user-sessions', { method: 'POST', body: { username: 'alice' } });
      const channelId = idIn((await big.call('/channels?type=PUBLIC')).text.replace(/^.*?"channels":\[/, ''));
      const body = `{"userSessionId":${idIn(session.text)},"channelId":${channelId}}`;
      const chat = await big.call('/_sandbox/chat-sessions', { method: 'POST', body });
      expect(chat.status, chat.text).toBe(201);
      expect(chat.text).toContain(`"channel":{"href":"${big.url}/channels/${channelId}"}`);
      const asText = await big.call('/_sandbox/chat-sessions', { method: 'POST', body: body.replace(/:(\d+)/g, ':"$1"') });
      expect(asText.status, asText.text).toBe(201);
    } finally {
      await big.close();
    }
  });
});

describe('DELETE /users/{id} takes what names the user with it', () => {
  it('its invites, moderator roles and read receipts are no longer listed', async () => {
    const s = await startTestSandbox({ seed: 'demo' });
    try {
      const make = async (name: string) => (await s.call('/users', { method: 'POST', body: { name, displayName: name, isGuest: false } })).json.id as number;
      const erin = await make('erin');
      const fay = await make('fay');
      expect((await s.call('/channels/1/invites', { method: 'POST', body: { user: { id: erin } } })).status).toBe(200);
      expect((await s.call('/channels/1/members', { method: 'POST', body: { id: fay } })).status).toBe(200);
      expect((await s.call('/channels/1/moderators', { method: 'POST', body: { id: fay } })).status).toBe(200);
      const message = (await s.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'read me', user: { username: 'alice' } } })).json.id;
      expect((await s.call(`/_sandbox/messages/${message}/read`, { method: 'POST', body: { username: 'fay' } })).status).toBe(200);
      for (const id of [erin, fay]) expect((await s.call(`/users/${id}`, { method: 'DELETE' })).status).toBe(200);
      expect((await s.call('/channels/1/invites')).json._embedded.invites).toEqual([]);
      expect((await s.call('/channels/1/moderators')).json.page.totalElements).toBe(0);
      expect((await s.call(`/messages/${message}/read-receipts`)).json._embedded.receipts).toEqual([]);
      const summaries = (await s.call('/application/message-read-receipt-summaries')).json._embedded.summaries;
      expect(summaries.map((x: Body) => x.messageId)).not.toContain(message);
    } finally {
      await s.close();
    }
  });
});

describe('sessions go with the channel or user they are in (a chat session is a user session in one channel)', () => {
  it("DELETE /channels/{id} takes its chat sessions; DELETE /users/{id} takes the user's sessions and their chat sessions, also after a restart", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'chatport-sessions-'));
    const s = await startTestSandbox({ seed: 'demo', dataDir });
    const start = async (box: TestSandbox, path: string, body: Body) => (await box.call(path, { method: 'POST', body })).json.id as number;
    const listed = async (box: TestSandbox, kind: 'chat' | 'user') => (await box.call(`/${kind}-sessions`)).json._embedded.sessions.map((x: Body) => x.id);
    try {
      const carol = await start(s, '/_sandbox/user-sessions', { username: 'carol' });
      const bob = await start(s, '/_sandbox/user-sessions', { username: 'bob' });
      const inGeneral = await start(s, '/_sandbox/chat-sessions', { userSessionId: carol, channelId: 1 });
      await start(s, '/_sandbox/chat-sessions', { userSessionId: carol, channelId: 2 });
      const bobInGeneral = await start(s, '/_sandbox/chat-sessions', { userSessionId: bob, channelId: 1 });
      expect((await s.call('/channels/2', { method: 'DELETE' })).status).toBe(200);
      expect(await listed(s, 'chat')).toEqual([inGeneral, bobInGeneral]);
      expect((await s.call('/users/3', { method: 'DELETE' })).status).toBe(200);
      expect(await listed(s, 'user')).toEqual([bob]);
      expect(await listed(s, 'chat')).toEqual([bobInGeneral]);
      await s.close();
      const again = await startTestSandbox({ dataDir });
      try {
        expect(await listed(again, 'user')).toEqual([bob]);
        expect(await listed(again, 'chat')).toEqual([bobInGeneral]);
      } finally {
        await again.close();
      }
    } finally {
      await s.close();
    }
  });
});
