import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO, startTestSandbox, toReply, type TestSandbox } from './helpers.js';

let t: TestSandbox;
/** The sandbox's clock: links expire only when a test moves it, never because the machine was slow. */
let clockMs = Date.now();
beforeAll(async () => {
  t = await startTestSandbox({ seed: 'demo', exportUrlTtlSeconds: 0.3, clock: () => clockMs });
});
afterAll(() => t.close());

async function finishedExport(path: string) {
  const accepted = await t.call(path, { method: 'POST' });
  expect(accepted.status).toBe(202);
  expect(accepted.json.state).toBe('PENDING');
  return t.waitJob(accepted.json.id);
}

const download = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, text: bytes.toString('utf8') };
};

describe('analytics exports (decisions.md)', () => {
  it('a finished message export links a CSV with the decided columns, fetched without the token', async () => {
    const job = await finishedExport('/analytics/messages');
    expect(job).toEqual({
      id: job.id,
      type: 'MESSAGE_ANALYTICS_EXPORT',
      state: 'FINISHED',
      createdTime: expect.stringMatching(ISO),
      endedTime: expect.stringMatching(ISO),
      file: expect.stringMatching(new RegExp(`^${t.url}/_exports/[A-Za-z0-9_-]{32}/messages-${job.id}\\.csv$`)),
      _links: { self: { href: `${t.url}/jobs/${job.id}` }, application: { href: `${t.url}/application` }, file: { href: job.file } },
    });
    t.sandbox.clearRequests();
    const file = await download(job.file);
    expect(file.status).toBe(200);
    expect(t.sandbox.requests()[0]!.headers.authorization).toBeUndefined();
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('accept-ranges')).toBe('bytes');
    const lines = file.text.trimEnd().split('\n');
    expect(lines[0]).toBe('id,type,channelId,channelName,userId,username,bodyLength,repliesCount,reactionsCount,groupTag,createdTime,lastEditedTime');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(/^1,SYSTEM_TEXT,1,general,,,19,0,0,,\d{4}-.+Z,$/);
    expect(lines[3]).toMatch(/^3,TEXT,1,general,2,bob,30,0,0,,/);
  });

  it('a user export has the user columns and counts', async () => {
    const job = await finishedExport('/analytics/users');
    expect(job.type).toBe('USER_ANALYTICS_EXPORT');
    const lines = (await download(job.file)).text.trimEnd().split('\n');
    expect(lines[0]).toBe('id,name,displayName,type,isGuest,createdTime,channelsCount,messagesCount,lastMessageTime');
    expect(lines[2]).toMatch(/^2,bob,Bob Baker,PERSON,false,[^,]+Z,3,2,[^,]+Z$/);
    expect(lines[4]).toMatch(/^4,announcer,Announcements Bot,BOT,false,[^,]+,0,0,$/);
  });

  it('serves byte ranges (206 + Content-Range) so a broken download resumes', async () => {
    const job = await finishedExport('/analytics/messages');
    const whole = await download(job.file);
    const size = whole.bytes.length;
    const tail = await download(job.file, { range: 'bytes=100-' });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-range')).toBe(`bytes 100-${size - 1}/${size}`);
    expect(Buffer.concat([whole.bytes.subarray(0, 100), tail.bytes]).equals(whole.bytes)).toBe(true);
    const middle = await download(job.file, { range: 'bytes=10-19' });
    expect(middle.bytes.equals(whole.bytes.subarray(10, 20))).toBe(true);
    const suffix = await download(job.file, { range: 'bytes=-5' });
    expect(suffix.bytes.equals(whole.bytes.subarray(size - 5))).toBe(true);
    const beyond = await download(job.file, { range: `bytes=${size}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${size}`);
  });

  it('honours If-Range: the range only for the current ETag or Last-Modified, the whole file otherwise', async () => {
    const job = await finishedExport('/analytics/messages');
    // fetch asks for identity with a Range; ask so for the whole file too, to compare one representation.
    const identity = { 'accept-encoding': 'identity' };
    const whole = await download(job.file, identity);
    const etag = whole.headers.get('etag')!;
    const modified = whole.headers.get('last-modified')!;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect((await download(job.file, { ...identity, range: 'bytes=100-', 'if-range': etag })).status).toBe(206);
    expect((await download(job.file, { ...identity, range: 'bytes=100-', 'if-range': modified })).status).toBe(206);
    for (const other of ['"0-0"', `W/${etag}`, 'Thu, 01 Jan 2015 00:00:00 GMT']) {
      const answer = await download(job.file, { ...identity, range: 'bytes=100-', 'if-range': other });
      expect(answer.status).toBe(200);
      expect(answer.bytes.equals(whole.bytes)).toBe(true);
    }
  });

  it('a download cut mid-way resumes with a Range request to the same bytes', async () => {
    const job = await finishedExport('/analytics/messages');
    const whole = await download(job.file);
    t.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'drop', when: 'mid-body' }, times: 1 }]);
    const { request } = await import('node:http');
    const partial = await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      request(job.file, (res) => {
        expect(res.headers['content-length']).toBe(String(whole.bytes.length));
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => resolve(Buffer.concat(chunks)));
        res.on('close', () => resolve(Buffer.concat(chunks)));
      }).end();
    });
    t.sandbox.setFaults([]);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(whole.bytes.length);
    const rest = await download(job.file, { range: `bytes=${partial.length}-` });
    expect(rest.status).toBe(206);
    expect(Buffer.concat([partial, rest.bytes]).equals(whole.bytes)).toBe(true);
  });

  it('offers gzip when asked, with ranges over the gzip bytes', async () => {
    const job = await finishedExport('/analytics/users');
    const plain = await download(job.file);
    const gz = await download(job.file, { 'accept-encoding': 'gzip' });
    // fetch decodes gzip itself; compare with what it decoded
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.text).toBe(plain.text);
    const { request } = await import('node:http');
    const raw = await new Promise<Buffer>((resolve, reject) => {
      request(job.file, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      })
        .on('error', reject)
        .end();
    });
    expect(gunzipSync(raw).toString('utf8')).toBe(plain.text);
  });

  it('refuses an unknown token (404) and an expired link (403); reading the job again gives a fresh link', async () => {
    const job = await finishedExport('/analytics/users');
    expect((await download(job.file.replace(/_exports\/[^/]+/, '_exports/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'))).status).toBe(404);
    clockMs += 350;
    const expired = await toReply(await fetch(job.file));
    expect(expired.status).toBe(403);
    expect(expired.json).toEqual({ error: 'access_denied', error_description: 'the download link has expired' });
    const again = (await t.call(`/jobs/${job.id}`)).json;
    expect(again.file).not.toBe(job.file);
    expect((await download(again.file)).status).toBe(200);
  });

  it('needs the read scopes of §4 to start', async () => {
    const token = t.sandbox.issueToken({ scopes: ['read:user'] });
    expect((await t.call('/analytics/messages', { method: 'POST', token })).status).toBe(403);
    expect((await t.call('/analytics/users', { method: 'POST', token })).status).toBe(202);
  });
});
