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
