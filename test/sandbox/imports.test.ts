import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, startTestSandbox, toReply, type TestSandbox } from './helpers.js';

let t: TestSandbox;
beforeAll(async () => {
  t = await startTestSandbox();
});
afterAll(() => t.close());

async function importAndWait(path: string, items: unknown) {
  const accepted = await t.upload(path, items);
  expect(accepted.status).toBe(202);
  return t.waitJob(accepted.json.id);
}

const user = (name: string, extra: object = {}) => ({ name, displayName: name.toUpperCase(), isGuest: false, properties: {}, idempotencyKey: `user:${name}`, ...extra });

describe('imports that FINISH', () => {
  it('answers 202 with a PENDING job at once (§4)', async () => {
    const reply = await t.upload('/imports/users', [user('ann'), user('ben', { guest: true, isGuest: undefined })]);
    expect(reply.status).toBe(202);
    expect(reply.headers.get('content-type')).toBe('application/vnd.chat+json');
    expect(reply.json).toEqual({
      id: reply.json.id,
      type: 'USER_IMPORT',
      state: 'PENDING',
      createdTime: expect.stringMatching(ISO),
      _links: { self: { href: `${t.url}/jobs/${reply.json.id}` }, application: { href: `${t.url}/application` } },
    });
    const job = await t.waitJob(reply.json.id);
    expect(job.state).toBe('FINISHED');
    expect(job.endedTime).toMatch(ISO);
    const ben = (await t.call('/users?name=ben')).json._embedded.users[0];
    expect(ben).toMatchObject({ name: 'ben', displayName: 'BEN', isGuest: true }); // `guest` accepted as alias
  });

  it('imports channels, members and messages', async () => {
    await importAndWait('/imports/users', [user('cal'), user('dee')]);
    const channels = await importAndWait('/imports/channels', [
      { type: 'PUBLIC', name: 'imp-general', members: ['ann', 'ben'], creator: 'ann', properties: { source: 'slack' }, idempotencyKey: 'ch:1' },
      { type: 'DIRECT', members: ['ann', 'cal'], idempotencyKey: 'ch:2' },
      { type: 'PRIVATE', members: [], idempotencyKey: 'ch:3' },
    ]);
    expect(channels).toMatchObject({ type: 'CHANNEL_IMPORT', state: 'FINISHED' });
    const general = (await t.call(`/channels?properties=${encodeURIComponent('{"source":"slack"}')}`)).json._embedded.channels[0];
    expect(general).toMatchObject({ name: 'imp-general', displayName: 'imp-general', type: 'PUBLIC', creator: { name: 'ann' } });
    const dm = (await t.call('/channels?type=DIRECT&members=ann&members=cal')).json._embedded.channels;
    expect(dm).toHaveLength(1);

    const members = await importAndWait(`/imports/channels/${general.id}/members`, [{ username: 'dee', idempotencyKey: 'm:1' }, { username: 'ben' }]);
    expect(members).toMatchObject({ type: 'CHANNEL_MEMBERS_IMPORT', state: 'FINISHED' });
    const listed = (await t.call(`/channels/${general.id}/members`)).json._embedded.users.map((u: { name: string }) => u.name);
    expect(listed).toEqual(['ann', 'ben', 'dee']);

    const messages = await importAndWait('/imports/messages', [
      { type: 'TEXT', channelId: general.id, user: 'ann', body: 'first', idempotencyKey: 'msg:1' },
      { type: 'SYSTEM_TEXT', channelId: general.id, body: 'second', properties: { source: { ts: '1' } } },
      { type: 'TEXT', channelId: dm[0].id, user: 'cal', body: 'third', groupTag: 'g1' },
    ]);
    expect(messages).toMatchObject({ type: 'MESSAGE_IMPORT', state: 'FINISHED' });
    const inGeneral = (await t.call(`/channels/${general.id}/messages`)).json._embedded.messages;
    expect(inGeneral.map((m: { body: string }) => m.body)).toEqual(['first', 'second']);
    expect(inGeneral[1]).toMatchObject({ type: 'SYSTEM_TEXT', properties: { source: { ts: '1' } } });
    expect(inGeneral[1].user).toBeUndefined();
    expect(new Date(inGeneral[0].createdTime).getTime()).toBeGreaterThan(Date.now() - 60_000); // createdTime = import time
  });
});

describe('imports that FAIL apply nothing', () => {
  it.each([
    ['an unknown field', '/imports/users', [user('ok1'), { ...user('bad1'), nickname: 'x' }]],
    ['a missing required field', '/imports/users', [user('ok2'), { name: 'bad2', displayName: 'B', isGuest: false }]],
    ['a name taken under another key', '/imports/users', [user('ok3'), user('ann', { idempotencyKey: 'other-key' })]],
    ['the same name twice in one file', '/imports/users', [user('ok4'), user('twin', { idempotencyKey: 'a' }), user('twin', { idempotencyKey: 'b' })]],
    ['an unknown member', '/imports/channels', [{ type: 'PUBLIC', name: 'ok5', members: [] }, { type: 'PUBLIC', name: 'x5', members: ['ghost'] }]],
    ['a DIRECT with one member', '/imports/channels', [{ type: 'PUBLIC', name: 'ok6', members: [] }, { type: 'DIRECT', members: ['ann'] }]],
    ['a DIRECT with eleven members', '/imports/channels', [{ type: 'PUBLIC', name: 'ok7', members: [] }, { type: 'DIRECT', members: Array.from({ length: 11 }, (_, i) => `u${i}`) }]],
    ['a channel name taken', '/imports/channels', [{ type: 'PUBLIC', name: 'ok8', members: [] }, { type: 'PRIVATE', name: 'imp-general', members: [], idempotencyKey: 'new' }]],
  ])('%s', async (_why, path, items) => {
    const usersBefore = (await t.call('/users')).json.page.totalElements;
    const channelsBefore = (await t.call('/channels')).json.page.totalElements;
    const job = await importAndWait(path, items);
    expect(job.state).toBe('FAILED');
    expect(job.endedTime).toMatch(ISO);
    expect((await t.call('/users')).json.page.totalElements).toBe(usersBefore);
    expect((await t.call('/channels')).json.page.totalElements).toBe(channelsBefore);
  });

  it('an unknown channel id or user in messages', async () => {
    const channelId = (await t.call('/channels?type=PUBLIC')).json._embedded.channels[0].id;
    const before = (await t.call('/messages?size=100')).json._embedded.messages.length;
    const unknownChannel = await importAndWait('/imports/messages', [
      { type: 'TEXT', channelId, user: 'ann', body: 'would be applied' },
      { type: 'TEXT', channelId: 987654, user: 'ann', body: 'x' },
    ]);
    expect(unknownChannel.state).toBe('FAILED');
    const unknownUser = await importAndWait('/imports/messages', [{ type: 'TEXT', channelId, user: 'ghost', body: 'x' }]);
    expect(unknownUser.state).toBe('FAILED');
    const textWithoutUser = await importAndWait('/imports/messages', [{ type: 'TEXT', channelId, body: 'x' }]);
    expect(textWithoutUser.state).toBe('FAILED');
    expect((await t.call('/messages?size=100')).json._embedded.messages.length).toBe(before);
  });

  it('members of a DIRECT channel', async () => {
    const dm = (await t.call('/channels?type=DIRECT')).json._embedded.channels[0];
    const job = await importAndWait(`/imports/channels/${dm.id}/members`, [{ username: 'dee' }]);
    expect(job.state).toBe('FAILED');
    expect((await t.upload('/imports/channels/987654/members', [])).status).toBe(404);
  });
});

describe('idempotency keys', () => {
  it('skips items whose key was already applied, so a re-sent file changes nothing', async () => {
    const channelId = (await t.call('/channels?type=PUBLIC')).json._embedded.channels[0].id;
    const file = [
      { type: 'TEXT', channelId, user: 'ann', body: 'once', idempotencyKey: 'idem:1' },
      { type: 'TEXT', channelId, user: 'ben', body: 'twice?', idempotencyKey: 'idem:2' },
    ];
    expect((await importAndWait('/imports/messages', file)).state).toBe('FINISHED');
    const count = async () => (await t.call(`/messages?query=${encodeURIComponent('once')}`)).json._embedded.messages.length;
    expect(await count()).toBe(1);
    expect((await importAndWait('/imports/messages', file)).state).toBe('FINISHED');
    expect(await count()).toBe(1);
    // A retried user file: the user exists, but under the same key, so it is a skip, not a clash.
    expect((await importAndWait('/imports/users', [user('ann')])).state).toBe('FINISHED');
    // A key already naming a record of another kind is a clash.
    expect((await importAndWait('/imports/users', [user('newbie', { idempotencyKey: 'idem:1' })])).state).toBe('FAILED');
  });

  it('keeps the key of a deleted message taken: a later import of it FINISHES and creates nothing (decisions.md)', async () => {
    const channelId = (await t.call('/channels?type=PUBLIC')).json._embedded.channels[0].id;
    const file = [{ type: 'TEXT', channelId, user: 'ann', body: 'deleted later', idempotencyKey: 'idem:deleted' }];
    expect((await importAndWait('/imports/messages', file)).state).toBe('FINISHED');
    const found = async () => (await t.call(`/messages?query=${encodeURIComponent('deleted later')}`)).json._embedded.messages;
    const [message] = await found();
    expect((await t.call(`/messages/${message.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await importAndWait('/imports/messages', file)).state).toBe('FINISHED');
    expect(await found()).toEqual([]);
  });
});

describe('one DIRECT channel per set of members (decisions.md "Import files")', () => {
  it('a larger DIRECT channel over the same people does not hide the smaller one', async () => {
    await importAndWait('/imports/users', [user('dx1'), user('dx2'), user('dx3')]);
    expect(await importAndWait('/imports/channels', [{ type: 'DIRECT', members: ['dx1', 'dx2'], idempotencyKey: 'dm:12' }])).toMatchObject({ state: 'FINISHED' });
    // Its members are added one at a time: the partial set {dx1, dx2} must neither take over nor drop dm:12's entry.
    expect(await importAndWait('/imports/channels', [{ type: 'DIRECT', members: ['dx1', 'dx2', 'dx3'], idempotencyKey: 'dm:123' }])).toMatchObject({ state: 'FINISHED' });
    const pair = (await t.call('/channels?type=DIRECT&members=dx1&members=dx2')).json._embedded.channels.filter((c: { members: unknown[] }) => c.members.length === 2);
    expect(pair).toHaveLength(1);

    expect(await importAndWait('/imports/channels', [{ type: 'DIRECT', members: ['dx2', 'dx1'], idempotencyKey: 'dm:21' }])).toMatchObject({ state: 'FINISHED' });
    const created = await t.call('/channels', { method: 'POST', body: { type: 'DIRECT', members: [{ username: 'dx2' }, { username: 'dx1' }] } });
    expect(created.json.id).toBe(pair[0].id);
    const after = (await t.call('/channels?type=DIRECT&members=dx1&members=dx2')).json._embedded.channels;
    expect(after.map((c: { id: number }) => c.id).sort()).toEqual([pair[0].id, after.find((c: { members: unknown[] }) => c.members.length === 3).id].sort());
  });

  it('a channel left holding a set whose indexed channel is deleted is found by that set', async () => {
    await importAndWait('/imports/users', [user('dy1'), user('dy2'), user('dy3')]);
    expect(await importAndWait('/imports/channels', [{ type: 'DIRECT', members: ['dy1', 'dy2', 'dy3'], idempotencyKey: 'dm:y123' }])).toMatchObject({ state: 'FINISHED' });
    expect(await importAndWait('/imports/channels', [{ type: 'DIRECT', members: ['dy1', 'dy2'], idempotencyKey: 'dm:y12' }])).toMatchObject({ state: 'FINISHED' });
    const direct = async () => (await t.call('/channels?type=DIRECT&members=dy1&members=dy2')).json._embedded.channels as { id: number; members: unknown[] }[];
    const [x, y] = [(await direct()).find((c) => c.members.length === 3)!, (await direct()).find((c) => c.members.length === 2)!];
    const dy3 = (await t.call('/users?name=dy3')).json._embedded.users[0];
    expect((await t.call(`/users/${dy3.id}`, { method: 'DELETE' })).status).toBe(200);
    // x now holds {dy1, dy2} too; y keeps the entry until it goes, then x must take it.
    expect((await t.call(`/channels/${y.id}`, { method: 'DELETE' })).status).toBe(200);

    expect(await importAndWait('/imports/channels', [{ type: 'DIRECT', members: ['dy2', 'dy1'], idempotencyKey: 'dm:y21' }])).toMatchObject({ state: 'FINISHED' });
    expect((await direct()).map((c) => c.id)).toEqual([x.id]);
    const created = await t.call('/channels', { method: 'POST', body: { type: 'DIRECT', members: [{ username: 'dy1' }, { username: 'dy2' }] } });
    expect(created.json.id).toBe(x.id);
  });
});

describe('malformed uploads answer 400 ClientError at once', () => {
  const clientError = { error: 'ClientError', message: expect.any(String), timestamp: expect.stringMatching(ISO) };

  it('a file that is not JSON, or not an array', async () => {
    for (const body of ['[{"name": ', '{"name": "x"}']) {
      const reply = await t.upload('/imports/users', body);
      expect(reply.status).toBe(400);
      expect(reply.headers.get('content-type')).toBe('application/json');
      expect(reply.json).toEqual(clientError);
    }
  });

  it('no part named file, a broken multipart body, and a non-multipart request', async () => {
    const form = new FormData();
    form.append('other', new Blob(['[]']), 'x.json');
    const noFile = await toReply(await fetch(`${t.url}/imports/users`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` }, body: form }));
    expect(noFile.status).toBe(400);
    expect(noFile.json).toEqual(clientError);
    const broken = await t.call('/imports/users', {
      method: 'POST',
      body: '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.json"\r\n\r\n[]',
      headers: { 'content-type': 'multipart/form-data; boundary=XYZ' },
    });
    expect(broken.status).toBe(400);
    expect(broken.json).toEqual(clientError);
    const noBoundary = await t.call('/imports/users', { method: 'POST', body: 'x', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.status).toBe(400);
    const json = await t.call('/imports/users', { method: 'POST', body: [] });
    expect(json.status).toBe(400);
    expect(json.json).toEqual(clientError);
  });

  it('takes exactly one part named file: a second is a 400, not silently dropped; another file part is ignored', async () => {
    const send = async (parts: [string, unknown][]) => {
      const form = new FormData();
      for (const [name, items] of parts) form.append(name, new Blob([JSON.stringify(items)]), `${name}.json`);
      return toReply(await fetch(`${t.url}/imports/users`, { method: 'POST', headers: { authorization: `Bearer ${t.token}` }, body: form }));
    };
    const two = await send([['file', [user('twofirst')]], ['file', [user('twosecond')]]]);
    expect(two.status).toBe(400);
    expect(two.json).toEqual(clientError);
    expect((await t.call('/users?name=twofirst')).json.page.totalElements).toBe(0);
    const otherFirst = await send([['attachment', [user('ignored')]], ['file', [user('otherfirst')]]]);
    expect(otherFirst.status).toBe(202);
    expect((await t.waitJob(otherFirst.json.id)).state).toBe('FINISHED');
    expect((await t.call('/users?name=otherfirst')).json.page.totalElements).toBe(1);
    expect((await t.call('/users?name=ignored')).json.page.totalElements).toBe(0);
  });
});

/** A sandbox whose log lines are kept, and the warning that failed a job. */
async function loggedSandbox() {
  const { Writable } = await import('node:stream');
  const { createLogger } = await import('../../src/shared/logger.js');
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const s = await startTestSandbox({ logger: createLogger({ destination, level: 'info' }) });
  const failureOf = (jobId: number) => lines.map((l) => JSON.parse(l)).find((l) => l.jobId === jobId && l.level === 'warn');
  return { s, failureOf };
}

describe('the failure reason goes to the log (the wire has none)', () => {
  it('names the item, the field and what was wrong', async () => {
    const { s, failureOf } = await loggedSandbox();
    try {
      const job = await s.waitJob((await s.upload('/imports/users', [user('fine'), { ...user('odd'), nickname: 'x' }])).json.id);
      expect(job.state).toBe('FAILED');
      const failure = failureOf(job.id);
      expect(failure).toMatchObject({ itemIndex: 1, kind: 'users' });
      expect(failure.reason).toContain('nickname');
      expect(JSON.stringify(failure)).not.toContain('"isGuest":false'); // the item's data is not dumped into logs
    } finally {
      await s.close();
    }
  });

  it('an item holding a number a double cannot hold (1e400, 1e-400) is invalid, not stored changed; long integers are kept', async () => {
    const { s, failureOf } = await loggedSandbox();
    try {
      expect((await s.waitJob((await s.upload('/imports/users', [user('num1')])).json.id)).state).toBe('FINISHED');
      await s.waitJob((await s.upload('/imports/channels', [{ type: 'PUBLIC', name: 'numbers', members: ['num1'], idempotencyKey: 'ch:num' }])).json.id);
      const channelId = (await s.call('/channels?name=numbers')).json._embedded.channels[0].id;
      const message = (key: string, properties: string) =>
        `{"type":"TEXT","channelId":${channelId},"user":"num1","body":"b","properties":${properties},"idempotencyKey":"${key}"}`;
      const fine = message('m:fine', '{"n":1}');
      // Written by hand: JSON.stringify cannot write these numbers. The first two files have the common
      // shape the sandbox's fast scan reads (message-upload-scan.ts); the third does not (an item with a user object).
      for (const [file, field, token] of [
        [`[${fine},${message('m:big', '{"n":1e400}')}]`, 'properties.n', '1e400'],
        [`[${fine},${message('m:tiny', '{"a":{"n":[0, 1e-400]}}')}]`, 'properties.a.n.1', '1e-400'],
        [`[${fine},${message('m:big2', '{"n":2.5E+999}')},{"type":"TEXT"}]`, 'properties.n', '2.5E+999'],
      ] as const) {
        const job = await s.waitJob((await s.upload('/imports/messages', file)).json.id);
        expect(job.state, file).toBe('FAILED');
        expect(failureOf(job.id), file).toMatchObject({ itemIndex: 1, field, reason: expect.stringContaining(token) });
      }
      const users = `[${JSON.stringify(user('num2')).replace('"properties":{}', '"properties":{"x":{"y":1e-999}}')}]`;
      const usersJob = await s.waitJob((await s.upload('/imports/users', users)).json.id);
      expect(usersJob.state).toBe('FAILED');
      expect(failureOf(usersJob.id)).toMatchObject({ itemIndex: 0, field: 'properties.x.y' });
      expect((await s.call('/users?name=num2')).json._embedded.users).toEqual([]);
      expect((await s.call(`/channels/${channelId}/messages`)).json._embedded.messages).toEqual([]);

      // An integer of any length is held exactly (as bigint), so it is no such number.
      const digits = '9'.repeat(400);
      expect((await s.waitJob((await s.upload('/imports/messages', `[${message('m:long', `{"n":${digits}}`)}]`)).json.id)).state).toBe('FINISHED');
      expect((await s.call(`/channels/${channelId}/messages`)).text).toContain(`"n":${digits}`);
    } finally {
      await s.close();
    }
  });
});
