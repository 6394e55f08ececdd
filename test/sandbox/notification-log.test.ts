import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NOTIFICATIONS_KEPT_PER_USER, NotificationLog, kindCode, notifiedId, notifiedOp, type NotifiedOp } from '../../src/sandbox/notification-log.js';
import { startTestSandbox, type Body, type TestSandbox } from './helpers.js';

function send(first: number, messageId: number, users: number[], kind = 'USER:SENT:MESSAGE'): NotifiedOp {
  const note = { m: messageId, c: 1, title: `from ${messageId}`, body: `body ${messageId}`, at: messageId * 1000 };
  return notifiedOp(note, users.map((_, i) => first + i), users, users.map(() => kindCode(kind)));
}

describe('NotificationLog: a bounded feed per user', () => {
  it('keeps the newest notifications of each user, newest first, and forgets the oldest past the bound', () => {
    const log = new NotificationLog(3);
    let id = 1;
    for (let m = 1; m <= 5; m++) {
      log.apply(send(id, m, [7, 8]));
      id += 2;
    }
    expect(log.idsNewestFirst(7)).toEqual([9, 7, 5]);
    expect(log.idsNewestFirst(8)).toEqual([10, 8, 6]);
    expect(log.get(7, 1)).toBeUndefined();
    expect(log.get(8, 9)).toBeUndefined(); // 9 went to user 7, not 8
    expect(log.get(8, 10)).toEqual({ id: 10, userId: 8, messageId: 5, channelId: 1, type: 'USER:SENT:MESSAGE', title: 'from 5', body: 'body 5', createdTime: 5000 });
    expect(log.idsNewestFirst(99)).toEqual([]);
  });

  it('takes a send applied again once (a journal replayed over the snapshot folded from it)', () => {
    const log = new NotificationLog(5);
    log.apply(send(1, 1, [7, 8]));
    log.apply(send(3, 2, [7]));
    log.apply(send(1, 1, [7, 8]));
    log.apply(send(3, 2, [7]));
    log.apply(send(4, 3, [8]));
    expect(log.idsNewestFirst(7)).toEqual([3, 1]);
    expect(log.idsNewestFirst(8)).toEqual([4, 2]);
  });

  it('takes more notifications than a Map can hold (V8 stops at about 16.7 million entries)', () => {
    const log = new NotificationLog();
    const members = Array.from({ length: 200 }, (_, i) => i + 1);
    let id = 1;
    for (let m = 1; m <= 85_000; m++) {
      log.apply(send(id, m, members, 'USER:REPLIED_TO:MESSAGE'));
      id += members.length;
    }
    expect(id - 1).toBe(17_000_000);
    const newest = log.idsNewestFirst(200);
    expect(newest).toHaveLength(NOTIFICATIONS_KEPT_PER_USER);
    expect(newest[0]).toBe(17_000_000);
    expect(log.get(200, 17_000_000)).toMatchObject({ messageId: 85_000, type: 'USER:REPLIED_TO:MESSAGE' });
  });

  it('dumps what it keeps as one op per send, in id order, that rebuild the same feeds', () => {
    const log = new NotificationLog(2);
    log.apply(send(1, 1, [1, 2, 3]));
    log.apply(send(4, 2, [2, 3], 'USER:MENTIONED:USER'));
    log.apply(send(6, 3, [3]));
    const ops = [...log.dump()];
    expect(ops.map((op) => [op.m, op.u.map((_, i) => notifiedId(op, i)), op.u])).toEqual([
      [1, [1, 2], [1, 2]],
      [2, [4, 5], [2, 3]],
      [3, [6], [3]],
    ]);
    // Journaled short: consecutive ids as `first` and one kind for all; ids listed once some fell out.
    expect(send(10, 9, [4, 5, 6])).toMatchObject({ first: 10, k: kindCode('USER:SENT:MESSAGE') });
    expect(send(10, 9, [4, 5, 6])).not.toHaveProperty('ids');
    const gappy = new NotificationLog(1);
    gappy.apply(notifiedOp({ m: 1, c: 1, title: 't', body: 'b', at: 0 }, [1, 2, 3, 4], [2, 1, 1, 3], [0, 3, 1, 1]));
    expect([...gappy.dump()]).toEqual([{ t: 'notified', m: 1, c: 1, title: 't', body: 'b', at: 0, u: [2, 1, 3], ids: [1, 3, 4], k: [0, 1, 1] }]);
    const rebuilt = new NotificationLog(2);
    for (const op of ops) rebuilt.apply(op);
    for (const user of [1, 2, 3]) {
      expect(rebuilt.idsNewestFirst(user)).toEqual(log.idsNewestFirst(user));
      for (const id of log.idsNewestFirst(user)) expect(rebuilt.get(user, id)).toEqual(log.get(user, id));
    }
  });

  it('lists and dumps only the notifications of messages still held, when told which are (§6.4: data carries the message)', () => {
    const log = new NotificationLog(5);
    log.apply(send(1, 1, [7, 8]));
    log.apply(send(3, 2, [7]));
    const held = (m: number) => m !== 1;
    expect(log.idsNewestFirst(7, held)).toEqual([3]);
    expect(log.idsNewestFirst(8, held)).toEqual([]);
    expect([...log.dump(held)].map((op) => op.m)).toEqual([2]);
  });
});

describe('notifications across restarts (--data)', () => {
  const dirs: string[] = [];
  const open: TestSandbox[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const start = async (dataDir: string) => {
    const s = await startTestSandbox({ dataDir, seed: 'demo' });
    open.push(s);
    return s;
  };
  /** A user's notifications, with the sandbox's address (a new port each start) taken out. */
  const feed = async (s: TestSandbox, userId: number) => {
    const text = JSON.stringify((await s.call(`/users/${userId}/notifications?size=100`)).json._embedded.notifications);
    return JSON.parse(text.replaceAll(s.url, 'http://sandbox')) as Body[];
  };

  it('survive the journal, the snapshot folded from it, and a journal written before this format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-notif-'));
    dirs.push(dir);
    const a = await start(dir);
    await a.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'first @bob', user: { username: 'alice' } } });
    await a.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'second', user: { username: 'bob' } } });
    const seen = { 1: await feed(a, 1), 2: await feed(a, 2), 3: await feed(a, 3) };
    expect(seen[2].map((n) => [n.body, n.data.type])).toEqual([['first @bob', 'USER:MENTIONED:USER']]);
    expect(seen[3].map((n) => n.body)).toEqual(['second', 'first @bob']);
    await a.close();
    open.length = 0;

    const b = await start(dir); // replays the journal, folds it into a snapshot
    for (const user of [1, 2, 3] as const) expect(await feed(b, user)).toEqual(seen[user]);
    await b.close();
    open.length = 0;

    // A journal line as sandboxes wrote them before notification-log.ts: one notification per op.
    const legacy = { id: 500, userId: 3, messageId: 1, channelId: 1, type: 'USER:SENT:MESSAGE', title: 'Old', body: 'from an old journal', createdTime: Date.UTC(2026, 0, 2) };
    appendFileSync(join(dir, 'journal.ndjson'), JSON.stringify({ t: 'notif', v: legacy }) + '\n');
    const c = await start(dir); // reads the snapshot, then the journal
    expect(await feed(c, 1)).toEqual(seen[1]);
    const third = await feed(c, 3);
    expect(third.slice(1)).toEqual(seen[3]);
    expect(third[0]).toMatchObject({ title: 'Old', body: 'from an old journal', createdTime: '2026-01-02T00:00:00.000Z', data: { type: 'USER:SENT:MESSAGE' } });
    const next = await c.call('/channels/1/messages', { method: 'POST', body: { type: 'TEXT', body: 'after', user: { username: 'alice' } } });
    expect(next.status).toBe(200);
    const [newest] = await feed(c, 3);
    expect(newest.body).toBe('after');
    expect(Number(newest.id)).toBeGreaterThan(500); // ids continue past the replayed ones
  });
});
