import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOtherOrigin, type OtherOrigin } from '../helpers/other-origin.js';
import { collect, startApiTestBed, writeUsersFile, type ApiTestBed } from './support.js';

let bed: ApiTestBed;
let other: OtherOrigin | undefined;

beforeEach(async () => {
  bed = await startApiTestBed();
  await bed.client.auth.check();
  bed.sandbox.clearRequests();
});

afterEach(async () => {
  bed.logs.expectNoSecrets(bed.secrets());
  await bed.close();
  await other?.close();
  other = undefined;
});

async function importedNames(prefix: string): Promise<string[]> {
  const users = await collect(bed.client.users.list());
  return users.map((u) => u.name).filter((n) => n.startsWith(prefix)).sort();
}

const uploads = () => bed.sandbox.requests().filter((r) => r.method === 'POST' && r.path.endsWith('/imports/users'));

describe('uploads under faults', () => {
  it('a connection dropped mid-upload is retried and nothing is duplicated', async () => {
    // Big enough that the drop happens while the body is still on its way.
    const file = writeUsersFile(3000, 'dropped');
    bed.sandbox.setFaults([{ method: 'POST', path: '/imports/users', fault: { kind: 'drop', when: 'mid-body' }, times: 1 }]);
    const job = await bed.client.imports.upload('users', { path: file.path });
    expect((await bed.client.jobs.wait(job.id, { initialIntervalMs: 10 })).state).toBe('FINISHED');
    expect(uploads()).toHaveLength(2);
    expect(await importedNames('dropped-')).toEqual(file.names);
  });

  it('an upload applied but unanswered is sent again, and idempotency keys keep it single', async () => {
    const file = writeUsersFile(40, 'unanswered');
    bed.sandbox.setFaults([{ method: 'POST', path: '/imports/users', fault: { kind: 'drop', when: 'after-processing' }, times: 1 }]);
    const job = await bed.client.imports.upload('users', { path: file.path });
    await bed.client.jobs.wait(job.id, { initialIntervalMs: 10 });
    const jobs = await collect(bed.client.jobs.list());
    // Two jobs ran over the same items; the second skipped every key the first applied.
    await Promise.all(jobs.map((j) => bed.client.jobs.wait(j.id, { initialIntervalMs: 10 })));
    expect(uploads()).toHaveLength(2);
    expect(await importedNames('unanswered-')).toEqual(file.names);
  });

  it('a 307 on an upload re-sends the body whole to the new address', async () => {
    const file = writeUsersFile(500, 'redirected');
    bed.sandbox.setFaults([{ method: 'POST', path: '/imports/users', fault: { kind: 'redirect', status: 307 }, times: 1 }]);
    const job = await bed.client.imports.upload('users', { path: file.path });
    expect((await bed.client.jobs.wait(job.id, { initialIntervalMs: 10 })).state).toBe('FINISHED');
    const [first, second] = uploads();
    expect(first!.path).toBe('/imports/users');
    expect(second!.path).toBe('/_r/imports/users');
    expect(second!.headers['content-length']).toBe(first!.headers['content-length']);
    expect(second!.headers.authorization).toBe('present');
    expect(await importedNames('redirected-')).toEqual(file.names);
  });

  it('a redirect to another origin gets the whole body and no Authorization', async () => {
    const file = writeUsersFile(200, 'elsewhere');
    other = await startOtherOrigin({
      respond: () => ({
        status: 202,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 99, type: 'USER_IMPORT', state: 'PENDING' }),
      }),
    });
    bed.sandbox.setFaults([{ method: 'POST', path: '/imports/users', fault: { kind: 'redirect', status: 308, toOrigin: other.url } }]);
    const job = await bed.client.imports.upload('users', { path: file.path });
    expect(job.id).toBe(99);
    expect(other.received).toHaveLength(1);
    const received = other.received[0]!;
    expect(received.headers.authorization).toBeUndefined();
    expect(received.path).toBe('/imports/users');
    // The multipart part holds exactly the file's bytes.
    const boundary = /boundary=(.+)$/.exec(String(received.headers['content-type']))![1]!;
    const text = received.body.toString('utf8');
    const part = text.slice(text.indexOf('\r\n\r\n') + 4, text.lastIndexOf(`\r\n--${boundary}--`));
    expect(part).toBe(readFileSync(file.path, 'utf8'));
    expect(Number(received.headers['content-length'])).toBe(received.body.length);
  });

  it('uploads members and messages from buffers', async () => {
    const file = writeUsersFile(3, 'buf');
    await bed.client.jobs.wait((await bed.client.imports.upload('users', { path: file.path })).id, { initialIntervalMs: 10 });
    const channels = [{ type: 'PUBLIC', name: 'room', members: [file.names[0]!], idempotencyKey: 'room' }];
    await bed.client.jobs.wait((await bed.client.imports.upload('channels', { bytes: Buffer.from(JSON.stringify(channels)) })).id, { initialIntervalMs: 10 });
    const [room] = await collect(bed.client.channels.list({ type: 'PUBLIC' }));
    const members = [{ username: file.names[1]!, idempotencyKey: 'm1' }, { username: file.names[2]!, idempotencyKey: 'm2' }];
    const job = await bed.client.imports.upload('members', { bytes: Buffer.from(JSON.stringify(members)) }, { channelId: room!.id });
    expect((await bed.client.jobs.wait(job.id, { initialIntervalMs: 10 })).state).toBe('FINISHED');
    expect((await collect(bed.client.channels.members(room!.id))).map((u) => u.name).sort()).toEqual(file.names);
  });
});
