import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isNotFoundError } from '../../src/api/index.js';
import { all } from '../import/support.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;

beforeEach(async () => {
  bed = await startApiTestBed({ seed: 'demo' });
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

async function sandboxRead(messageId: number, username: string): Promise<void> {
  const res = await fetch(`${bed.sandbox.url}/_sandbox/messages/${messageId}/read`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.sandbox.issueToken()}`, 'content-type': 'application/vnd.chat+json' },
    body: JSON.stringify({ username }),
  });
  expect(res.status).toBe(200);
}

describe('client.activity and messages.deleteAll', () => {
  it('notifications, unread messages, read receipts and their summaries, typed', async () => {
    const sent = await bed.client.channels.sendMessage(1, { type: 'TEXT', body: 'hello @carol', user: { username: 'alice' } });
    const [newest] = await all(bed.client.activity.notifications(3, { pageSize: 1 }));
    expect(newest).toMatchObject({ body: 'hello @carol', data: { type: 'USER:MENTIONED:USER', message: { id: sent.id } }, muted: false });
    expect((await all(bed.client.activity.unreadMessages(2))).map((m) => m.id)).toContain(sent.id);
    await sandboxRead(Number(sent.id), 'bob');
    expect((await all(bed.client.activity.unreadMessages(2))).map((m) => m.id)).not.toContain(sent.id);
    expect((await all(bed.client.activity.readReceipts(sent.id))).map((r) => r.user?.name)).toEqual(['bob']);
    expect(await all(bed.client.activity.readReceiptSummaries())).toContainEqual(expect.objectContaining({ messageId: sent.id, readCount: 1 }));
  });

  it('keystrokes into a channel and a thread; deleteAll empties the application', async () => {
    expect(await bed.client.activity.keystrokes({ channelId: 1 }, { keys: 'ab', user: { username: 'alice' } })).toMatchObject({ keys: 'ab', username: 'alice' });
    expect(await bed.client.activity.keystrokes({ threadId: 2 }, { keys: 'c', user: { id: 2 } })).toMatchObject({ username: 'bob' });
    expect((await bed.client.messages.deleteAll()).name).toBe('sandbox');
    expect(await all(bed.client.messages.list())).toEqual([]);
  });
});

const sandboxPost = async (path: string, body: unknown) => {
  const res = await fetch(`${bed.sandbox.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${bed.sandbox.issueToken()}`, 'content-type': 'application/vnd.chat+json' }, body: JSON.stringify(body) });
  return (await res.json()) as { id: number };
};

describe('client.administration', () => {
  it('moderators, invites, events and participants of a channel', async () => {
    const admin = bed.client.administration;
    expect(await admin.addModerator(1, { username: 'bob' })).toMatchObject({ name: 'bob' });
    expect((await all(admin.moderators(1))).map((u) => u.name)).toEqual(['bob']);
    expect(await admin.removeModerator(1, 2)).toMatchObject({ name: 'general' });
    expect(await all(admin.moderators(1))).toEqual([]);
    await admin.invite(2, { username: 'alice' });
    expect(await all(admin.invites(2))).toHaveLength(1);
    expect(await admin.sendEvent(1, { type: 'x', properties: { a: 1 } })).toMatchObject({ type: 'x', properties: { a: 1 } });
    const session = await sandboxPost('/_sandbox/user-sessions', { username: 'carol' });
    await sandboxPost('/_sandbox/chat-sessions', { userSessionId: session.id, channelId: 1 });
    expect((await all(admin.participants(1))).map((u) => u.name)).toEqual(['carol']);
    expect((await all(admin.userSessions({ state: 'ACTIVE' }))).map((s) => s.id)).toEqual([session.id]);
    expect(await all(admin.chatSessions({ state: 'ENDED' }))).toEqual([]);
  });

  it('secrets, the display picture and the full PUT of a user', async () => {
    const admin = bed.client.administration;
    await admin.setSecret(2, 'token', { v: 1 });
    expect((await admin.getSecret(2, 'token')).secret).toEqual({ v: 1 });
    await admin.deleteSecret(2, 'token');
    expect(isNotFoundError(await admin.getSecret(2, 'token').catch((e: unknown) => e))).toBe(true);
    expect(await admin.setDisplayPicture(3, { url: 'https://cdn.example.invalid/c.png', name: 'c.png', contentType: 'image/png', size: 10 })).toMatchObject({ displayPictureUrl: 'https://cdn.example.invalid/c.png' });
    expect(await admin.replaceUser(4, { name: 'announcer', displayName: 'News', isGuest: false })).toMatchObject({ displayName: 'News' });
  });
});

describe('client.records and client.runtime', () => {
  it('creates, changes and removes single records', async () => {
    const r = bed.client.records;
    const user = await r.createUser({ name: 'dora', displayName: 'Dora', isGuest: false });
    const channel = await r.createChannel({ type: 'PUBLIC', name: 'scripted', members: [{ username: 'alice' }] });
    expect(await r.addMember(channel.id, { id: user.id })).toMatchObject({ name: 'scripted' });
    expect(await all(r.memberships(channel.id))).toHaveLength(2);
    expect((await all(r.userChannels(user.id))).map((c) => c.name)).toEqual(['scripted']);
    await r.removeMember(channel.id, user.id);
    expect(await all(r.memberships(channel.id))).toHaveLength(1);
    const sent = await bed.client.channels.sendMessage(channel.id, { type: 'TEXT', body: 'draft', user: { username: 'alice' } });
    expect((await r.updateMessage(sent.id, { body: 'final' })).body).toBe('final');
    expect((await all(r.userMessages(1))).map((m) => m.id)).toContain(sent.id);
    expect(await r.deleteMessage(sent.id)).toMatchObject({ type: 'MAIN' });
    expect((await r.deleteChannel(channel.id)).name).toBe('sandbox');
    expect((await r.deleteUser(user.id)).name).toBe('sandbox');
  });

  it('creates a function, deploys a version and reads its invocations', async () => {
    const fn = await bed.client.runtime.createFunction({ type: 'user.received.notification', name: 'n', initializeAsynchronously: false });
    const v = await bed.client.runtime.deploy(fn.id, 'async function handleEvent(e) { return e.notification.data.type; }');
    expect((await bed.client.runtime.currentVersion(fn.id)).versionNumber).toBe(v.versionNumber);
    await bed.client.channels.sendMessage(1, { type: 'TEXT', body: 'notify', user: { username: 'alice' } });
    let done: Array<{ status: string }> = [];
    while (done.length < 2 || done.some((i) => i.status === 'RUNNING')) done = await all(bed.client.runtime.invocations(fn.id));
    expect(done.map((i) => i.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect((await bed.client.runtime.get()).type).toBe('NODEJS');

    // A FAILED invocation has an error and no payload: the client reads it too.
    await bed.client.runtime.deploy(fn.id, 'async function handleEvent() { throw new Error("broken"); }');
    await bed.client.channels.sendMessage(1, { type: 'TEXT', body: 'again', user: { username: 'alice' } });
    let failed: Array<{ status: string; result?: { error?: string } }> = [];
    while (failed.length < 4 || failed.some((i) => i.status === 'RUNNING')) failed = await all(bed.client.runtime.invocations(fn.id));
    expect(failed[0]).toMatchObject({ status: 'FAILED', result: { error: 'broken' } });
  });
});
