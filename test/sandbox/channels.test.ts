import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, startTestSandbox, type Body, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo' });
});
afterAll(() => t.close());

const names = (reply: { json: Body }, kind = 'channels') => reply.json._embedded[kind].map((x: { name: string }) => x.name);

describe('channels', () => {
  it('POST /channels creates a group channel and answers it (§2 Channel)', async () => {
    const reply = await t.call('/channels', {
      method: 'POST',
      body: { type: 'PRIVATE', name: 'ops', displayName: 'Ops', creator: { username: 'carol' }, members: [{ id: 1 }], properties: { src: 'x' } },
    });
    expect(reply.status).toBe(200);
    const id = reply.json.id;
    expect(reply.json).toEqual({
      id,
      type: 'PRIVATE',
      name: 'ops',
      displayName: 'Ops',
      creator: expect.objectContaining({ id: 3, name: 'carol' }),
      properties: { src: 'x' },
      createdTime: expect.stringMatching(ISO),
      _links: {
        self: { href: `${t.url}/channels/${id}` },
        participants: { href: `${t.url}/channels/${id}/participants` },
        members: { href: `${t.url}/channels/${id}/members` },
        memberships: { href: `${t.url}/channels/${id}/memberships` },
        messages: { href: `${t.url}/channels/${id}/messages` },
      },
    });
    // members appear on DIRECT channels only; group members come from the members endpoint
    expect(reply.json.members).toBeUndefined();
    expect(names(await t.call(`/channels/${id}/members`), 'users')).toEqual(['alice', 'carol']);
  });

  it('answers the equivalent existing channel: same name, or same DIRECT members', async () => {
    const again = await t.call('/channels', { method: 'POST', body: { type: 'PUBLIC', name: 'general' } });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(1);
    const direct = await t.call('/channels', { method: 'POST', body: { type: 'DIRECT', members: [{ username: 'bob' }, { username: 'alice' }] } });
    expect(direct.json.id).toBe(3);
    expect(direct.json.members.map((m: { name: string }) => m.name).sort()).toEqual(['alice', 'bob']);
    const fresh = await t.call('/channels', { method: 'POST', body: { type: 'DIRECT', creator: { username: 'carol' }, members: [{ username: 'alice' }] } });
    expect(fresh.json.id).not.toBe(3);
    expect(fresh.json.name).toMatch(/^[0-9a-f-]{36}$/); // defaults to a random UUID
    expect(fresh.json.displayName).toBe(fresh.json.name);
  });

  it('refuses invalid channels with 400', async () => {
    for (const body of [
      { type: 'DIRECT', members: [{ username: 'alice' }] },
      { type: 'GROUP', name: 'x' },
      { type: 'PUBLIC', members: [{ username: 'ghost' }] },
      { type: 'PUBLIC', members: [{ username: 'alice' }, { username: 'alice' }] },
      // §2 Create-channel body: "members | array of user references, unique". One user referenced by username
      // and by id is not unique (alice is user 1 in the demo seed); as a DIRECT it would pass the 2-member minimum with one person.
      { type: 'PUBLIC', name: 'twice', members: [{ username: 'alice' }, { id: 1 }] },
      { type: 'DIRECT', members: [{ username: 'carol' }, { id: 3 }] },
      // The name is a PUBLIC channel's: not an equivalent of a PRIVATE one.
      { type: 'PRIVATE', name: 'general' },
      // The name is alice and bob's DIRECT channel: not an equivalent of one for bob and carol (who have none).
      { type: 'DIRECT', name: 'dm-alice-bob', members: [{ username: 'bob' }, { username: 'carol' }] },
    ]) {
      const reply = await t.call('/channels', { method: 'POST', body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.json.error).toBe('ClientError');
    }
  });

  it('GET /channels filters by type, members, created time and properties', async () => {
    expect(names(await t.call('/channels?type=DIRECT'))).toContain('dm-alice-bob');
    expect(names(await t.call('/channels?type=PUBLIC'))).toEqual(['general']);
    expect(names(await t.call('/channels?members=bob&members=carol'))).toEqual(['general', 'data-team']);
    expect((await t.call('/channels?members=bob&members=bob')).status).toBe(400);
    expect(names(await t.call(`/channels?properties=${encodeURIComponent('{"topic":"everything"}')}`))).toEqual(['general']);
    expect(names(await t.call('/channels?direct=true'))).not.toContain('general');
    expect(names(await t.call('/channels?startTime=2000-01-01T00:00:00Z&endTime=2000-01-02T00:00:00Z'))).toEqual([]);
    expect(names(await t.call(`/channels?startTime=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`))).toContain('general');
    expect((await t.call('/channels?type=ROUND')).status).toBe(400);
    expect((await t.call('/channels?startTime=yesterday')).status).toBe(400);
  });

  it('GET /channels?properties= matches equal JSON values (decisions.md): nested key order aside, integers beyond 2^53 exactly', async () => {
    const made = await t.call('/channels', { method: 'POST', body: '{"type":"PUBLIC","name":"props-eq","properties":{"big":12345678901234567890,"o":{"x":1,"y":[2,{"a":1,"b":2}]}}}' });
    expect(made.status).toBe(200);
    const filter = async (value: string) => t.call(`/channels?properties=${encodeURIComponent(value)}`);
    expect(names(await filter('{"o":{"y":[2,{"b":2,"a":1}],"x":1}}'))).toEqual(['props-eq']);
    const big = await filter('{"big":12345678901234567890}');
    expect(big.status).toBe(200);
    expect(names(big)).toEqual(['props-eq']);
    expect(names(await filter('{"big":12345678901234567891}'))).toEqual([]);
    expect(names(await filter('{"o":{"x":1}}'))).toEqual([]);
    expect(names(await filter('{"toString":1}'))).toEqual([]);
  });

  it('GET /channels reads a startTime or endTime without an offset as UTC (wire rule 4), whatever the host\'s time zone', async () => {
    const created = Date.parse((await t.call('/channels/1')).json.createdTime);
    const noOffset = (ms: number) => new Date(ms).toISOString().slice(0, -1);
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo'; // UTC+9: read as local time, the end of the range would fall 9 hours early
    try {
      expect(names(await t.call(`/channels?endTime=${noOffset(created + 60_000)}`))).toContain('general');
      expect(names(await t.call(`/channels?startTime=${noOffset(created + 60_000)}`))).not.toContain('general');
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('GET, PATCH and DELETE /channels/{id}', async () => {
    const got = await t.call('/channels/2');
    expect(got.json).toMatchObject({ id: 2, type: 'PRIVATE', name: 'data-team', lastReceivedMessage: { body: 'Dashboards are updated.' } });
    const patched = await t.call('/channels/2', {
      method: 'PATCH',
      body: { displayName: 'Data', properties: { x: 1 } },
      headers: { 'content-type': 'application/json+merge-patch' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id: 2, name: 'data-team', displayName: 'Data', properties: { x: 1 } });
    const temp = await t.call('/channels', { method: 'POST', body: { type: 'PUBLIC', name: 'temp' } });
    const deleted = await t.call(`/channels/${temp.json.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toMatchObject({ id: 1, name: 'sandbox' });
    expect((await t.call(`/channels/${temp.json.id}`)).status).toBe(404);
  });

  it('PATCH properties is an RFC 7386 merge patch at every depth: a null removes, also inside a new object', async () => {
    const created = await t.call('/channels', { method: 'POST', body: { type: 'PUBLIC', name: 'merge-depth', properties: { keep: 1, nested: { a: 1, b: 2 }, flat: 'x' } } });
    const patch = (body: unknown) => t.call(`/channels/${created.json.id}`, { method: 'PATCH', body, headers: { 'content-type': 'application/json+merge-patch' } });
    const patched = await patch({ properties: { nested: { a: null, c: 3 }, fresh: { gone: null, kept: { deep: null, v: 1 } }, flat: { also: null } } });
    expect(patched.json.properties).toEqual({ keep: 1, nested: { b: 2, c: 3 }, fresh: { kept: { v: 1 } }, flat: {} });
    expect((await t.call(`/channels/${created.json.id}`)).json.properties).toEqual(patched.json.properties);
  });

  it('PATCH /channels/{id} refuses a field it cannot change (type, id) or does not know, with the §7 400, and changes nothing', async () => {
    const before = (await t.call('/channels/2')).json;
    const patch = (body: unknown) => t.call('/channels/2', { method: 'PATCH', body, headers: { 'content-type': 'application/json+merge-patch' } });
    for (const [body, field] of [[{ type: 'PUBLIC' }, 'type'], [{ id: 99, displayName: 'Renamed' }, 'id'], [{ displayName: 'Renamed', colour: 'red' }, 'colour']] as const) {
      const refused = await patch(body);
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ error: 'ClientError', message: expect.stringContaining(`field '${field}'`), timestamp: expect.stringMatching(ISO) });
      expect(refused.json.message).toContain('name, displayName, properties');
    }
    expect((await t.call('/channels/2')).json).toEqual(before);
  });

  it('a PATCH body must be labelled application/json+merge-patch (decisions.md "Wire"); another JSON type is a 400 and changes nothing', async () => {
    const sent = await t.call('/channels/2/messages', { method: 'POST', body: { type: 'SYSTEM_TEXT', body: 'to edit' } });
    for (const path of ['/channels/2', '/users/2', `/messages/${sent.json.id}`]) {
      const before = (await t.call(path)).json;
      for (const type of ['application/json', 'application/vnd.chat+json', 'application/merge-patch+json']) {
        const body = path.startsWith('/messages') ? { body: 'edited' } : { displayName: 'Changed' };
        const refused = await t.call(path, { method: 'PATCH', body, headers: { 'content-type': type } });
        expect(refused.status).toBe(400);
        expect(refused.json).toEqual({ error: 'ClientError', message: expect.stringContaining('application/json+merge-patch'), timestamp: expect.stringMatching(ISO) });
      }
      expect((await t.call(path)).json).toEqual(before);
      const labelled = await t.call(path, { method: 'PATCH', body: { properties: { labelled: true } }, headers: { 'content-type': 'application/json+merge-patch; charset=utf-8' } });
      expect(labelled.status).toBe(200);
    }
  });
});

describe('a JSON body holding a number a double cannot hold', () => {
  it('is a 400 naming the number, and changes nothing: a channel made, a patch, a message sent', async () => {
    const before = (await t.call('/channels/2')).json;
    const cases: Array<[string, string, string, string?]> = [
      ['/channels', 'POST', '{"type":"PUBLIC","name":"huge-number","properties":{"n":1e400}}'],
      ['/channels/2', 'PATCH', '{"properties":{"tiny":-1e-400}}', 'application/json+merge-patch'],
      ['/channels/2/messages', 'POST', '{"type":"SYSTEM_TEXT","body":"n","properties":{"n":2.5E+999}}'],
    ];
    for (const [path, method, body, type] of cases) {
      const refused = await t.call(path, { method, body, ...(type ? { headers: { 'content-type': type } } : {}) });
      expect(refused.status).toBe(400);
      expect(refused.json.message).toMatch(/the number (1e400|-1e-400|2\.5E\+999) at character \d+ is beyond what a JSON number holds/);
    }
    expect((await t.call('/channels/2')).json).toEqual(before);
    expect(names(await t.call('/channels?size=100'))).not.toContain('huge-number');
    const messages = await t.call('/channels/2/messages?size=100');
    expect(messages.json._embedded.messages.map((m: { body: string }) => m.body)).not.toContain('n');
  });
});

describe('channel members and memberships', () => {
  it('adds, lists and removes members of a group channel', async () => {
    const added = await t.call('/channels/2/members', { method: 'POST', body: { username: 'alice' } });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ id: 2, type: 'PRIVATE' });
    expect(names(await t.call('/channels/2/members'), 'users')).toEqual(['bob', 'carol', 'alice']);
    const memberships = await t.call('/channels/2/memberships');
    expect(memberships.json._embedded.memberships[0]).toEqual({
      createdTime: expect.stringMatching(ISO),
      _links: {
        self: { href: `${t.url}/channels/2/memberships` },
        channel: { href: `${t.url}/channels/2` },
        user: { href: `${t.url}/users/2` },
      },
    });
    expect(memberships.json.page.totalElements).toBe(3);
    const removed = await t.call('/channels/2/members/1', { method: 'DELETE' });
    expect(removed.status).toBe(200);
    expect(names(await t.call('/channels/2/members'), 'users')).toEqual(['bob', 'carol']);
    expect((await t.call('/channels/2/members/1', { method: 'DELETE' })).status).toBe(404);
  });

  it('refuses member changes on DIRECT channels and unknown users', async () => {
    expect((await t.call('/channels/3/members', { method: 'POST', body: { username: 'carol' } })).status).toBe(400);
    expect((await t.call('/channels/2/members', { method: 'POST', body: { username: 'ghost' } })).status).toBe(400);
    expect((await t.call('/channels/999/members')).status).toBe(404);
  });

  it('a user reference holds either username or id (§2 "User reference"): both is a 400 naming the field, and nothing changes', async () => {
    const both = await t.call('/channels/2/members', { method: 'POST', body: { username: 'alice', id: 3 } });
    expect(both.status, both.text).toBe(400);
    expect(both.json.message).toContain('either username or id');
    expect(names(await t.call('/channels/2/members'), 'users')).not.toContain('alice');
    const sent = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'hi', user: { username: 'alice', id: 2 } } });
    expect(sent.status).toBe(400);
    expect(sent.json.message).toContain("field 'user'");
    expect((await t.call('/channels', { method: 'POST', body: { type: 'PUBLIC', name: 'refs', members: [{ username: 'bob', id: 1 }] } })).status).toBe(400);
    expect((await t.call('/channels?type=PUBLIC')).json._embedded.channels.map((c: Body) => c.name)).not.toContain('refs');
  });
});

describe('messages', () => {
  it('POST /channels/{id}/messages sends as a user or as the system (§2 Message)', async () => {
    const reply = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'hi', user: { username: 'carol' }, groupTag: 'g' } });
    expect(reply.status).toBe(200);
    const id = reply.json.id;
    expect(reply.json).toEqual({
      id,
      type: 'TEXT',
      nestedLevel: 0,
      channelId: 1,
      user: expect.objectContaining({ id: 3, name: 'carol' }),
      body: 'hi',
      groupTag: 'g',
      repliesCount: 0,
      createdTime: expect.stringMatching(ISO),
      _links: { self: { href: `${t.url}/messages/${id}` }, channel: { href: `${t.url}/channels/1` }, replies: { href: `${t.url}/threads/${2 * id + 1}` } },
    });
    const system = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'SYSTEM_TEXT', body: 'notice' } });
    expect(system.json.user).toBeUndefined();
    expect((await t.call('/channels/1')).json.lastReceivedMessage.id).toBe(system.json.id);
    expect((await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT' } })).status).toBe(400);
  });

  it('POST /channels/{id}/messages refuses a body its type does not fit (§2, decisions.md "Enumerations"), storing nothing', async () => {
    const before = (await t.call('/channels/1')).json.lastReceivedMessage.id;
    const file = { name: 'a.txt', contentType: 'text/plain', size: 3, url: 'https://files.example/a.txt' };
    const refused: Array<[Body, string]> = [
      [{ type: 'BANANA', body: 'x', user: { username: 'bob' } }, 'type'],
      [{ type: 'SYSTEM_TEXT' }, 'body'],
      [{ type: 'FILE', body: 'no file', user: { username: 'bob' } }, 'file'],
      [{ type: 'SYSTEM_TEXT', body: 'notice', user: { username: 'bob' } }, 'user'],
      [{ type: 'SYSTEM_FILE', file, user: { username: 'bob' } }, 'user'],
      // decisions.md "Enumerations": a file message is FILE (SYSTEM_FILE); a text type carrying a file contradicts itself.
      [{ type: 'TEXT', body: 'see attached', file, user: { username: 'bob' } }, 'file'],
      [{ type: 'SYSTEM_TEXT', body: 'see attached', file }, 'file'],
    ];
    for (const [body, field] of refused) {
      const reply = await t.call('/channels/1/messages', { method: 'POST', body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.json).toEqual({ error: 'ClientError', message: expect.stringContaining(`field '${field}'`), timestamp: expect.stringMatching(ISO) });
    }
    expect((await t.call('/channels/1')).json.lastReceivedMessage.id).toBe(before);
    const sent = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'FILE', file, user: { username: 'bob' } } });
    expect(sent.json).toMatchObject({ type: 'FILE', file: { type: 'EXTERNAL', ...file }, user: { name: 'bob' } });
  });

  it('POST /channels/{id}/messages without a user sends the system\'s message (§2): a TEXT or FILE becomes SYSTEM_TEXT or SYSTEM_FILE', async () => {
    const file = { name: 'b.txt', contentType: 'text/plain', size: 3, url: 'https://files.example/b.txt' };
    const text = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'whose?' } });
    expect(text.status).toBe(200);
    expect(text.json.type).toBe('SYSTEM_TEXT');
    expect(text.json.user).toBeUndefined();
    const sentFile = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'FILE', file } });
    expect(sentFile.json).toMatchObject({ type: 'SYSTEM_FILE', file: { type: 'EXTERNAL', ...file } });
    expect((await t.call(`/messages/${text.json.id}`)).json.type).toBe('SYSTEM_TEXT');
  });

  it('GET /messages/{id} and DELETE /messages/{id} (thread-shaped answer)', async () => {
    const got = await t.call('/messages/2');
    expect(got.json).toMatchObject({ id: 2, type: 'TEXT', channelId: 1, body: 'Hello everyone!', user: { name: 'alice' } });
    const sent = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'bye', user: { id: 2 } } });
    const deleted = await t.call(`/messages/${sent.json.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    // The thread the message was in: channel 1's MAIN thread (threads.ts: id 2 × channel id).
    expect(deleted.json).toEqual({
      id: 2,
      type: 'MAIN',
      properties: {},
      createdTime: expect.stringMatching(ISO),
      _links: { self: { href: `${t.url}/threads/2` }, messages: { href: `${t.url}/threads/2/messages` }, channel: { href: `${t.url}/channels/1` } },
    });
    expect((await t.call(`/messages/${sent.json.id}`)).status).toBe(404);
  });

  it('PATCH /messages/{id} merges body, groupTag and properties and sets lastEditedTime', async () => {
    const sent = await t.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'draft', user: { id: 2 }, properties: { a: 1, b: 2 } } });
    expect(sent.json.lastEditedTime).toBeUndefined();
    const patch = (body: unknown) => t.call(`/messages/${sent.json.id}`, { method: 'PATCH', body, headers: { 'content-type': 'application/json+merge-patch' } });
    const edited = await patch({ body: 'final', groupTag: 'g', properties: { a: null, c: 3 } });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ id: sent.json.id, body: 'final', groupTag: 'g', properties: { b: 2, c: 3 }, lastEditedTime: expect.stringMatching(ISO) });
    expect(edited.json.properties.a).toBeUndefined();
    expect((await t.call(`/messages/${sent.json.id}`)).json).toMatchObject({ body: 'final', groupTag: 'g' });
    expect((await patch({ groupTag: null })).json.groupTag).toBeUndefined();
    expect((await patch({ body: '' })).status).toBe(400);
    // A field a message patch cannot change (or does not know) is refused, not dropped: nothing changes.
    for (const body of [{ type: 'SYSTEM_TEXT' }, { body: 'moved', channelId: 3 }]) expect((await patch(body)).json).toMatchObject({ error: 'ClientError', message: expect.stringContaining(`field '${Object.keys(body).at(-1)}'`) });
    expect((await t.call(`/messages/${sent.json.id}`)).json).toMatchObject({ body: 'final', type: 'TEXT' });
    expect((await t.call('/messages/4242', { method: 'PATCH', body: { body: 'x' }, headers: { 'content-type': 'application/json+merge-patch' } })).status).toBe(404);
  });

  it('GET /channels/{id}/messages and GET /messages list with filters', async () => {
    const inDm = await t.call('/channels/3/messages');
    expect(inDm.json._embedded.messages.map((m: { body: string }) => m.body)).toEqual(['Lunch?', 'Sure, 12:30.']);
    const byAlice = await t.call('/messages?username=alice');
    expect(byAlice.json._embedded.messages.every((m: { user: { name: string } }) => m.user.name === 'alice')).toBe(true);
    expect((await t.call('/messages?query=dashboards')).json._embedded.messages).toHaveLength(1);
    expect((await t.call('/messages?username=ghost')).json._embedded.messages).toEqual([]);
  });
});
