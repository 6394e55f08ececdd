import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isServerError } from '../../src/api/index.js';
import { all } from '../import/support.js';
import { startApiTestBed, type ApiTestBed } from './support.js';

let bed: ApiTestBed;

beforeEach(async () => {
  bed = await startApiTestBed({ seed: 'demo' });
  await bed.client.auth.check();
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
});

const replyThreadOf = (href: string | undefined) => Number(href?.split('/').pop());

describe('client.threads', () => {
  it('sends replies into a message\'s reply thread and reads them back in order', async () => {
    const [general] = await all(bed.client.channels.list({ pageSize: 1 }));
    const root = await bed.client.messages.get((await all(bed.client.channels.messages(general!.id, { pageSize: 1 })))[0]!.id);
    const threadId = replyThreadOf((root._links as Record<string, { href: string }> | undefined)?.replies?.href);
    const thread = await bed.client.threads.get(threadId);
    expect(thread).toMatchObject({ id: threadId, type: 'MESSAGE' });
    const a = await bed.client.threads.send(threadId, { type: 'TEXT', body: 'first', user: { username: 'bob' }, properties: { k: 1 } });
    const b = await bed.client.threads.send(threadId, { type: 'SYSTEM_TEXT', body: 'second' });
    expect([a.nestedLevel, b.nestedLevel]).toEqual([1, 1]);
    expect((await all(bed.client.threads.messages(threadId, { pageSize: 1 }))).map((m) => m.body)).toEqual(['first', 'second']);
    expect((await bed.client.messages.get(root.id)).repliesCount).toBe(2);
  });

  it('repeats a send the platform did not take (429), never one whose outcome is unknown (500)', async () => {
    const threadId = 2; // channel 1's MAIN thread
    bed.sandbox.setFaults([{ path: `/threads/${threadId}/messages`, method: 'POST', fault: { kind: 'status', status: 429, retryAfter: { seconds: 0 } }, times: 1 }]);
    bed.sandbox.clearRequests();
    await bed.client.threads.send(threadId, { type: 'SYSTEM_TEXT', body: 'after a 429' });
    expect(bed.sandbox.requests().filter((r) => r.method === 'POST').map((r) => r.status)).toEqual([429, 200]);

    bed.sandbox.setFaults([{ path: `/threads/${threadId}/messages`, method: 'POST', fault: { kind: 'status', status: 500 }, times: 1 }]);
    bed.sandbox.clearRequests();
    const error = await bed.client.threads.send(threadId, { type: 'SYSTEM_TEXT', body: 'unknown outcome' }).catch((e: unknown) => e);
    expect(isServerError(error)).toBe(true);
    expect(bed.sandbox.requests().filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
