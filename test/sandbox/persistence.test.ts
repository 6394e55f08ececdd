import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { startTestSandbox, type TestSandbox } from './helpers.js';

const dirs: string[] = [];
const open: TestSandbox[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
  dirs.push(dir);
  return dir;
}
async function start(dataDir: string, extra: object = {}): Promise<TestSandbox> {
  const s = await startTestSandbox({ dataDir, seed: 'demo', clientId: 'c', clientSecret: 'persisted-secret', ...extra });
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('--data keeps state across restarts', () => {
  it('users, channels, members, messages, jobs, settings and idempotency keys survive; ids continue', async () => {
    const dir = tempDir();
    const a = await start(dir);
    const appKey = (await a.call('/application')).json.key;
    await a.call('/users', { method: 'POST', body: { name: 'dora', displayName: 'Dora', isGuest: false } });
    await a.call('/channels/2/members', { method: 'POST', body: { username: 'alice' } });
    await a.call('/application/settings', { method: 'PUT', body: { guestUsers: 'DISABLED', userCreatedChannels: 'DISABLED' } });
    const file = [{ type: 'TEXT', channelId: 1, user: 'dora', body: 'kept', idempotencyKey: 'p:1' }];
    const job = await a.waitJob((await a.upload('/imports/messages', file)).json.id);
    const exportJob = await a.waitJob((await a.call('/analytics/users', { method: 'POST' })).json.id);
    await a.call('/messages/4', { method: 'DELETE' });
    await a.close();

    const b = await start(dir); // the seed is not applied again to a sandbox with state
    expect((await b.call('/application')).json.key).toBe(appKey);
    expect((await b.call('/users')).json.page.totalElements).toBe(5);
    expect((await b.call('/channels')).json.page.totalElements).toBe(3);
    expect((await b.call('/channels/2/members')).json._embedded.users.map((u: { name: string }) => u.name)).toEqual(['bob', 'carol', 'alice']);
    expect((await b.call('/application/settings')).json).toEqual({ guestUsers: 'DISABLED', userCreatedChannels: 'DISABLED' });
    expect((await b.call('/messages?query=kept')).json._embedded.messages).toHaveLength(1);
    expect((await b.call('/messages/4')).status).toBe(404);
    expect((await b.call(`/jobs/${job.id}`)).json.state).toBe('FINISHED');
    const again = await b.waitJob((await b.upload('/imports/messages', file)).json.id);
    expect(again.state).toBe('FINISHED');
    expect((await b.call('/messages?query=kept')).json._embedded.messages).toHaveLength(1);
    expect(again.id).toBe(exportJob.id + 1);
    const eve = await b.call('/users', { method: 'POST', body: { name: 'eve', displayName: 'Eve', isGuest: false } });
    expect(eve.json.id).toBe(6);
    const csv = await fetch((await b.call(`/jobs/${exportJob.id}`)).json.file);
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain('dora');
  });


  it('an imported message whose properties hold an integer beyond 2^53 is journaled exactly: its job finishes and a restart keeps the value', async () => {
    const dir = tempDir();
    const a = await start(dir);
    const big = '12345678901234567891';
    const file = `[{"type":"TEXT","channelId":1,"user":"alice","body":"big","properties":{"n":${big},"list":[-${big}]},"idempotencyKey":"big:1"}]`;
    const job = await a.waitJob((await a.upload('/imports/messages', file)).json.id);
    expect(job.state).toBe('FINISHED');
    const before = (await a.call('/messages?query=big')).text;
    expect(before).toContain(`"properties":{"n":${big},"list":[-${big}]}`);
    await a.close();
    const b = await start(dir);
    expect((await b.call(`/jobs/${job.id}`)).json.state).toBe('FINISHED');
    expect((await b.call('/messages?query=big')).text).toContain(`"properties":{"n":${big},"list":[-${big}]}`);
    // Compacted into the snapshot on that start, and read back exactly from it too.
    await b.close();
    const c = await start(dir);
    expect((await c.call('/messages?query=big')).text).toContain(`"properties":{"n":${big},"list":[-${big}]}`);
  });
  it('changes are on disk before the answer (a copy taken while running has them), and a torn last line is skipped', async () => {
    const dir = tempDir();
    const a = await start(dir);
    await a.call('/users', { method: 'POST', body: { name: 'journaled', displayName: 'J', isGuest: false } });
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true });
    appendFileSync(join(copy, 'journal.ndjson'), '{"t":"user","v":{"id":99,"na');
    const b = await start(copy);
    expect((await b.call('/users?name=journaled')).json._embedded.users).toHaveLength(1);
    expect((await b.call('/users')).json.page.totalElements).toBe(5);
    expect(readdirSync(copy).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it('refuses to start on a damaged line that is not the journal\'s last (file, line, byte offset), instead of dropping a change', async () => {
    const dir = tempDir();
    const a = await start(dir);
    await a.call('/users', { method: 'POST', body: { name: 'kept', displayName: 'K', isGuest: false } });
    const copy = tempDir();
    cpSync(dir, copy, { recursive: true });
    const journal = join(copy, 'journal.ndjson');
    const before = readFileSync(journal, 'utf8');
    expect(before.split('\n').filter(Boolean).length).toBeGreaterThan(0);
    writeFileSync(journal, `${before}{"t":"user","v":{"id":99,"na\n{"t":"noop"}\n`);
    const error = await start(copy).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'DATA_INVALID',
      details: { file: journal, line: before.split('\n').length, byteOffset: Buffer.byteLength(before) },
    });
    expect(exitCodeFor(error)).toBe(ExitCode.DATA_INVALID);
    expect((error as Error).message).toContain(`${journal} is damaged at line ${before.split('\n').length} (byte ${Buffer.byteLength(before)})`);

    // The snapshot is written whole and renamed: even its last line may not be bad.
    const snapshotCopy = tempDir();
    cpSync(dir, snapshotCopy, { recursive: true });
    appendFileSync(join(snapshotCopy, 'state.ndjson'), '{"t":"user","v":{"id":99,"na');
    await expect(start(snapshotCopy)).rejects.toMatchObject({ code: 'DATA_INVALID', details: { file: join(snapshotCopy, 'state.ndjson') } });
  });

  it('jobs a restart interrupted end FAILED', async () => {
    const dir = tempDir();
    const a = await start(dir, { jobs: { stuck: true } });
    const id = (await a.upload('/imports/users', [])).json.id;
    await a.close();
    const b = await start(dir);
    const job = (await b.call(`/jobs/${id}`)).json;
    expect(job.state).toBe('FAILED');
    expect(job.endedTime).toBeDefined();
  });
});
