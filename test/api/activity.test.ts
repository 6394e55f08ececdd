import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
