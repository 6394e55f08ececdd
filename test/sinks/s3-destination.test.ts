import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { InterruptedError } from '../../src/shared/errors.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import type { Publication } from '../../src/sinks/destination.js';
import { createDestination, writeExport } from '../../src/sinks/index.js';
import { createS3Destination } from '../../src/sinks/s3-destination.js';
import { CLEANUP_GRACE_MS } from '../../src/sinks/s3-stop.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { once, startStallingStore } from '../helpers/stalling-s3.js';
import { startCuttingProxy } from '../sources/cutting-proxy.js';
import { startOtherOrigin } from '../helpers/other-origin.js';
import { describeDestinationContract, options, type DestinationUnderTest } from './destination-contract.js';
import { asyncRows, sampleRows } from './sample-rows.js';

const BUCKET = 'chatport-out';
let s3: S3Server;
let client: S3Client;
let targets = 0;

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  client = s3.client();
});
afterAll(() => s3?.close());

const connection = (endpoint = s3.endpoint) => ({ endpoint, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });

async function s3Target(endpoint?: string): Promise<DestinationUnderTest> {
  const prefix = `t${++targets}`;
  return {
    // Through the same factory the CLI uses: the s3:// root picks the S3 backend.
    destination: createDestination(`s3://${BUCKET}/${prefix}/`, { ...connection(endpoint), partSizeBytes: 5 * 1024 * 1024 }),
    async listFiles() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/`, ContinuationToken: token }));
        for (const item of page.Contents ?? []) keys.push(item.Key!.slice(prefix.length + 1));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async readFile(relative) {
      const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${relative}` }));
      return Buffer.from(await object.Body!.transformToByteArray());
    },
  };
}

// Each attempt's data files carry a tag of its own (8 hex digits).
describeDestinationContract('S3', () => s3Target(), '[0-9a-f]{8}-');

it('S3: takes the old _SUCCESS down first, then data, manifest, stale deletes, and _SUCCESS last', async () => {
  const proxy = await startCuttingProxy(Number(new URL(s3.endpoint).port), { pathPart: '-', bodyBytes: 0, cuts: 0 });
  try {
    const target = await s3Target(proxy.endpoint);
    await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson'));
    proxy.requests.length = 0;
    const { manifest } = await writeExport(asyncRows(sampleRows(3000)), options(target, 'ndjson', { runId: 'SECONDRUN' }));
    const writes = proxy.requests
      .map((r) => r.split('\r\n')[0]!)
      .filter((line) => !line.startsWith('GET ') && !line.startsWith('HEAD '))
      .map((line) => decodeURIComponent(line).replace(/ HTTP\/1\.1$/, '').replace(/\/chatport-out\/t\d+\//, '/').replace(/\?x-id=\w+$/, ''));
    expect(writes).toEqual([
      'DELETE /messages/dt=2026-11-21/_SUCCESS',
      ...manifest.files.map((f) => `PUT /messages/dt=2026-11-21/${f.name}`),
      'PUT /_manifests/messages/dt=2026-11-21/manifest.json',
      expect.stringMatching(/^POST \/chatport-out\/?\?delete/),
      'PUT /messages/dt=2026-11-21/_SUCCESS',
    ]);
  } finally {
    await proxy.close();
  }
});

it('S3: streams a file larger than one part as a multipart upload, intact', async () => {
  const target = await s3Target();
  const destination = createS3Destination(target.destination.root, { ...connection(), partSizeBytes: 5 * 1024 * 1024 });
  // Uncompressed Parquet of incompressible-ish rows: a single file of several MiB.
  const rows = async function* () {
    for (let i = 0; i < 60_000; i++) yield { ...sampleRows(1)[0], id: BigInt(i), name: `${i}-${Math.sin(i).toString(36)}`.repeat(4) };
  };
  const { manifest } = await writeExport(rows(), { ...options(target, 'parquet'), destination, maxFileBytes: 1 << 30, parquet: { compression: 'uncompressed', rowGroupRows: 20_000 } });
  expect(manifest.files).toHaveLength(1);
  expect(manifest.files[0]!.bytes).toBeGreaterThan(5 * 1024 * 1024);
  const stored = await target.readFile(`messages/dt=2026-11-21/${manifest.files[0]!.name}`);
  expect(stored.length).toBe(manifest.files[0]!.bytes);
  const { createHash } = await import('node:crypto');
  expect(createHash('sha256').update(stored).digest('hex')).toBe(manifest.files[0]!.sha256);
});

it('S3: of two runs of one date at once, the one that finds the other\'s files stops (75) and the other publishes whole', async () => {
  const target = await s3Target();
  const partition = { dataset: 'messages', date: '2026-11-21' };
  await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson', { runId: 'EARLIER' }));
  const upload = async (publication: Publication, text: string) => {
    const name = publication.dataFileName(0, 'ndjson.gz');
    await publication.writeDataFile(name, Readable.from([Buffer.from(text)]), 'application/x-ndjson');
    return name;
  };
  const first = await target.destination.beginPublication(partition, 'RUNA');
  const second = await target.destination.beginPublication(partition, 'RUNB');
  await upload(first, 'a');
  const secondFile = await upload(second, 'b');

  // Publishing now would delete the other run's file as stale, and its manifest would name a deleted file.
  const refused: unknown = await first.commit('{"runId":"RUNA"}').catch((error: unknown) => error);
  expect(refused).toMatchObject({ code: 'OUTPUT_CONCURRENT_WRITE', message: expect.stringContaining(secondFile) });
  expect(exitCodeFor(refused)).toBe(ExitCode.TEMPORARY);
  await first.abort();
  // The old _SUCCESS stays down: it would mark the other run's files beside the old ones.
  expect((await target.listFiles()).filter((f) => f.endsWith('_SUCCESS'))).toEqual([]);

  await second.commit('{"runId":"RUNB"}');
  expect(await target.listFiles()).toEqual(['_manifests/messages/dt=2026-11-21/manifest.json', 'messages/dt=2026-11-21/_SUCCESS', `messages/dt=2026-11-21/${secondFile}`]);
});

it('S3: a run whose files another run deleted as stale stops (75) instead of publishing a manifest of missing files', async () => {
  const target = await s3Target();
  const partition = { dataset: 'messages', date: '2026-11-21' };
  const first = await target.destination.beginPublication(partition, 'RUNA');
  await first.writeDataFile(first.dataFileName(0, 'ndjson.gz'), Readable.from([Buffer.from('a')]), 'application/x-ndjson');
  // A second run starts after the first uploaded (its file looks like old output) and publishes first.
  await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson', { runId: 'RUNB' }));
  const refused: unknown = await first.commit('{"runId":"RUNA"}').catch((error: unknown) => error);
  expect(refused).toMatchObject({ code: 'OUTPUT_CONCURRENT_WRITE', message: expect.stringContaining('disappeared') });
  const manifest = JSON.parse((await target.readFile('_manifests/messages/dt=2026-11-21/manifest.json')).toString('utf8')) as { runId: string };
  expect(manifest.runId).toBe('RUNB');
});

it('S3: refuses a root whose key prefix has empty, "." or ".." segments (stores rewrite them: the manifest would name other keys)', () => {
  for (const root of [`s3://${BUCKET}/p/./r`, `s3://${BUCKET}/p/../r`, `s3://${BUCKET}/p//r`, `s3://${BUCKET}//p`]) {
    let refused: unknown;
    try {
      createS3Destination(root, connection());
    } catch (error) {
      refused = error;
    }
    expect(refused, root).toMatchObject({ message: expect.stringContaining('may not have empty, "." or ".." segments') });
    expect(exitCodeFor(refused)).toBe(ExitCode.USAGE);
  }
  for (const root of [`s3://${BUCKET}`, `s3://${BUCKET}/`, `s3://${BUCKET}/a.b/..c/d//`]) expect(createS3Destination(root, connection()).root).toBe(root);
});

it('S3: a store that accepts the connection and never answers stops the publication (69), not a job hung forever', async () => {
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const destination = createS3Destination(`s3://${BUCKET}/p`, { ...connection(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`), idleTimeoutMs: 300 });
    const failure = await destination.beginPublication({ dataset: 'messages', date: '2026-11-21' }, 'RUNA').catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'OUTPUT_UNAVAILABLE' });
    expect(exitCodeFor(failure)).toBe(ExitCode.UNAVAILABLE);
  } finally {
    silent.close();
  }
}, 30_000);

// SIGTERM while an upload waits on a store that does not answer: the upload must stop at once (143), and
// the cleanup still reach the store (the old _SUCCESS back), but only for a short grace after the stop,
// so the process ends within the pod's grace period instead of after the idle limit and its retries.
for (const answerCleanup of [true, false]) {
  it(`S3: a stop ends an upload to a store that does not answer at once; the cleanup ${answerCleanup ? 'puts the old _SUCCESS back' : 'that gets no answer gives up after its grace, saying what it left'}`, async () => {
    const store = await startStallingStore(BUCKET, answerCleanup);
    const stop = new AbortController();
    const graces: number[] = [];
    // The grace "passes" once the cleanup's request is under way and unanswered: an injected clock.
    const sleep = (ms: number, signal?: AbortSignal) => {
      graces.push(ms);
      return once(() => !answerCleanup && store.cleanupAsked(), signal);
    };
    void once(store.uploading).then(() => stop.abort(new InterruptedError('SIGTERM')));
    try {
      const destination = createS3Destination(`s3://${BUCKET}/p`, { ...connection(store.endpoint), signal: stop.signal, sleep });
      const target = { destination, listFiles: () => Promise.resolve([]), readFile: () => Promise.resolve(Buffer.alloc(0)) };
      const failure = await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson')).catch((e: unknown) => e);
      expect(failure).toBe(stop.signal.reason);
      expect(exitCodeFor(failure)).toBe(ExitCode.SIGTERM);
      expect(graces).toEqual([CLEANUP_GRACE_MS]);
      const afterStop = store.seen.slice(store.seen.findIndex((r) => r.includes('/part-')) + 1);
      expect(afterStop[0]).toMatch(/^POST \/chatport-out\/?\?delete/);
      if (answerCleanup) {
        expect(afterStop).toContain('PUT /chatport-out/p/messages/dt=2026-11-21/_SUCCESS');
        expect((failure as InterruptedError).details.cleanup).toBeUndefined();
      } else {
        expect(afterStop.some((r) => r.endsWith('/_SUCCESS'))).toBe(false);
        expect((failure as InterruptedError).details.cleanup).toEqual(expect.stringMatching(
          /^cleaning up s3:\/\/chatport-out\/p\/messages\/dt=2026-11-21\/ did not finish \(the store did not answer within 5000 ms of the stop\): 1 data file\(s\) of this attempt may remain there, named by no manifest; the date's _SUCCESS stays down, so readers treat it as incomplete .*The next export of this date removes this attempt's files and publishes the date whole/,
        ));
      }
    } finally {
      store.close();
    }
  }, 20_000);
}

it('S3: a stop during a multipart upload still aborts it on the store (its parts are not left stored), and the cleanup follows', async () => {
  const store = await startStallingStore(BUCKET, true);
  const stop = new AbortController();
  void once(store.uploading).then(() => stop.abort(new InterruptedError('SIGTERM')));
  try {
    // The grace never passes here: the store answers the cleanup.
    const sleep = (_ms: number, signal?: AbortSignal) => once(() => false, signal);
    const destination = createS3Destination(`s3://${BUCKET}/p`, { ...connection(store.endpoint), signal: stop.signal, sleep, partSizeBytes: 5 * 1024 * 1024 });
    const publication = await destination.beginPublication({ dataset: 'messages', date: '2026-11-21' }, 'RUNA');
    const name = publication.dataFileName(0, 'csv.gz');
    const failure = await publication.writeDataFile(name, Readable.from([Buffer.alloc(6 * 1024 * 1024)]), 'text/csv').catch((e: unknown) => e);
    expect(failure).toBe(stop.signal.reason);
    expect(store.seen.filter((r) => r.startsWith('DELETE ') && r.includes('uploadId=u1'))).toHaveLength(1);
    await publication.abort();
    expect(store.seen.at(-1)).toBe('PUT /chatport-out/p/messages/dt=2026-11-21/_SUCCESS');
  } finally {
    store.close();
  }
}, 20_000);

it('S3: a listing page that says "truncated" without a continuation token stops the publication (69), not a folder half listed', async () => {
  // Half listed, the stale files after the first page would stay beside the new ones under a new _SUCCESS.
  const page = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${BUCKET}</Name><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated><Contents><Key>p/messages/dt=2026-11-21/part-OLD-00000.csv.gz</Key><Size>6</Size></Contents></ListBucketResult>`;
  const store = await startOtherOrigin({ respond: (request) => ({ status: 200, headers: { 'content-type': 'application/xml' }, body: request.path.includes('list-type=2') ? page : '' }) });
  try {
    const destination = createS3Destination(`s3://${BUCKET}/p`, connection(store.url));
    const failure = await destination.beginPublication({ dataset: 'messages', date: '2026-11-21' }, 'RUNA').catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'OUTPUT_UNAVAILABLE', message: expect.stringContaining('says there are more keys but gives no continuation token') });
    expect(exitCodeFor(failure)).toBe(ExitCode.UNAVAILABLE);
  } finally {
    await store.close();
  }
});

it('S3: a date a killed run left without _SUCCESS is finished from its manifest by the next run in its format', async () => {
  const target = await s3Target();
  const partition = { dataset: 'messages', date: '2026-11-21' };
  const { manifest } = await writeExport(asyncRows(sampleRows(300)), options(target, 'ndjson'));
  const published = await target.listFiles();
  const key = (relative: string) => `${target.destination.root.replace(/^s3:\/\/[^/]+\//, '')}${relative}`;
  // Killed after taking _SUCCESS down and uploading a file, before its manifest: the old manifest still
  // names every old file.
  await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key('messages/dt=2026-11-21/_SUCCESS') }));
  await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key('messages/dt=2026-11-21/part-KILLED-0badf00d-00000.ndjson.gz'), Body: 'cut' }));
  expect(await target.destination.isMarked(partition)).toBe(false);
  // Another format's run does not finish it (it replaces the date itself).
  expect(await target.destination.finishInterrupted(partition, 'csv')).toBe('none');
  expect(await target.destination.finishInterrupted(partition, 'ndjson')).toBe('finished');
  expect(await target.listFiles()).toEqual(published);
  expect(await target.destination.isMarked(partition)).toBe(true);
  expect(await target.destination.finishInterrupted(partition, 'ndjson')).toBe('none');

  // A manifest naming a file that is not there makes no whole date: nothing is deleted or marked.
  await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key('messages/dt=2026-11-21/_SUCCESS') }));
  await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key(`messages/dt=2026-11-21/${manifest.files[0]!.name}`) }));
  expect(await target.destination.finishInterrupted(partition, 'ndjson')).toBe('none');
  expect(await target.destination.isMarked(partition)).toBe(false);
});

it('S3: a store that keeps other bytes than it was sent fails the publication (73) instead of a manifest naming sizes and hashes the files do not have', async () => {
  const proxy = await startCuttingProxy(Number(new URL(s3.endpoint).port), { pathPart: '/part-', bodyBytes: 0, cuts: 0, padPuts: '5\r\n' });
  try {
    const target = await s3Target(proxy.endpoint);
    const failed = await writeExport(asyncRows(sampleRows(50)), options(target, 'ndjson')).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'OUTPUT_WRITE_FAILED' });
    expect((failed as Error).message).toMatch(/^publishing s3:\/\/chatport-out\/t\d+\/messages\/dt=2026-11-21\/ failed while checking the stored bytes of part-\S+: the store holds (\d+) bytes under its key, \d+ were sent/);
    expect(exitCodeFor(failed)).toBe(ExitCode.CANT_CREATE);
    // Nothing was published: no manifest, no _SUCCESS, and the attempt's file deleted.
    expect(await target.listFiles()).toEqual([]);
  } finally {
    await proxy.close();
  }
});

/** A byte of `body` changed, its length kept: what a store that keeps other bytes of the same size holds. */
const flipped = (body: Buffer) => Buffer.concat([body.subarray(0, -1), Buffer.from([body.at(-1)! ^ 0xff])]);

/** A failed run of a date published before by run EARLIER: 69 naming `reason`, and EARLIER's output still published. */
async function expectEarlierKept(target: DestinationUnderTest, failed: unknown, published: string[], reason: RegExp): Promise<void> {
  expect(failed).toMatchObject({ code: 'OUTPUT_UNAVAILABLE', message: expect.stringMatching(reason) });
  expect(exitCodeFor(failed)).toBe(ExitCode.UNAVAILABLE);
  expect(await target.listFiles()).toEqual(published);
  const manifest = JSON.parse((await target.readFile('_manifests/messages/dt=2026-11-21/manifest.json')).toString('utf8')) as { runId: string };
  expect(manifest.runId).toBe('EARLIER');
}

it('S3: every upload carries its Content-MD5, so a store that receives other bytes of the same size refuses them (73) and the previous output stays published', async () => {
  let alter = false;
  const store = await startOtherOrigin({ forwardTo: s3.endpoint, checkContentMd5: true, alterBody: (r) => (alter && r.method === 'PUT' && r.path.includes('/part-') ? flipped(r.body) : r.body) });
  try {
    const target = await s3Target(store.url);
    await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson', { runId: 'EARLIER' }));
    const puts = store.received.filter((r) => r.method === 'PUT');
    // Data, manifest and _SUCCESS, each with the MD5 of its bytes (the store accepted them all).
    expect(puts.map((r) => r.path.replace(/\?.*$/, '').replace(/^.*\//, '').replace(/^part-.*/, 'part'))).toEqual(['part', 'manifest.json', '_SUCCESS']);
    for (const put of puts) expect(put.headers['content-md5']).toBe(createHash('md5').update(put.body).digest('base64'));
    const published = await target.listFiles();

    alter = true;
    const failed = await writeExport(asyncRows(sampleRows(50)), options(target, 'ndjson')).catch((e: unknown) => e);
    await expectEarlierKept(target, failed, published, /failed while uploading part-\S+: .*the bytes the store received are not the bytes sent .*a rerun sends them again.*\(BadDigest, 400\)$/);
  } finally {
    await store.close();
  }
});

it('S3: each part of a multipart upload carries its Content-MD5; a part the store receives altered fails the upload (73) for that reason, even when the store then refuses to abort the upload (s3rver: 405)', async () => {
  let alterPart: string | undefined;
  const store = await startOtherOrigin({ forwardTo: s3.endpoint, checkContentMd5: true, alterBody: (r) => (alterPart && r.path.includes(`partNumber=${alterPart}`) ? flipped(r.body) : r.body) });
  try {
    const destination = createS3Destination(`s3://${BUCKET}/multipart-md5`, { ...connection(store.url), partSizeBytes: 5 * 1024 * 1024 });
    const partition = { dataset: 'messages', date: '2026-11-21' };
    const body = randomBytes(6 * 1024 * 1024);
    const accepted = await destination.beginPublication(partition, 'RUNA');
    await accepted.writeDataFile(accepted.dataFileName(0, 'csv.gz'), Readable.from([body]), 'text/csv');
    const parts = store.received.filter((r) => r.method === 'PUT' && r.path.includes('partNumber='));
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part.headers['content-md5']).toBe(createHash('md5').update(part.body).digest('base64'));
    await accepted.abort();

    alterPart = '2';
    const refused = await destination.beginPublication(partition, 'RUNB');
    const failed = await refused.writeDataFile(refused.dataFileName(0, 'csv.gz'), Readable.from([body]), 'text/csv').catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'OUTPUT_UNAVAILABLE', message: expect.stringMatching(/its parts could not be removed either.*\(BadDigest, 400\)$/) });
    expect(exitCodeFor(failed)).toBe(ExitCode.UNAVAILABLE);
    await refused.abort();
  } finally {
    await store.close();
  }
});

it('S3: a store that ignores Content-MD5 and keeps other bytes of the same size is caught (its ETag is the MD5 of what it kept): the date is not published (69)', async () => {
  let alter = false;
  const store = await startOtherOrigin({ forwardTo: s3.endpoint, alterBody: (r) => (alter && r.method === 'PUT' && r.path.includes('/part-') ? flipped(r.body) : r.body) });
  try {
    const target = await s3Target(store.url);
    await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson', { runId: 'EARLIER' }));
    const published = await target.listFiles();

    alter = true;
    const failed = await writeExport(asyncRows(sampleRows(50)), options(target, 'ndjson')).catch((e: unknown) => e);
    await expectEarlierKept(target, failed, published, /failed while checking the stored bytes of part-\S+: the bytes stored at s3:\/\/\S+ are not the bytes sent \(MD5 [0-9a-f]{32}, sent [0-9a-f]{32}\).*a rerun sends them again/);
  } finally {
    await store.close();
  }
});

it('S3: a multipart part that a store ignoring Content-MD5 keeps altered is caught after the upload (69)', async () => {
  const store = await startOtherOrigin({ forwardTo: s3.endpoint, alterBody: (r) => (r.path.includes('partNumber=2') ? flipped(r.body) : r.body) });
  try {
    const destination = createS3Destination(`s3://${BUCKET}/multipart-etag`, { ...connection(store.url), partSizeBytes: 5 * 1024 * 1024 });
    const publication = await destination.beginPublication({ dataset: 'messages', date: '2026-11-21' }, 'RUNA');
    const failed = await publication.writeDataFile(publication.dataFileName(0, 'csv.gz'), Readable.from([randomBytes(6 * 1024 * 1024)]), 'text/csv').catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'OUTPUT_UNAVAILABLE', message: expect.stringMatching(/checking the stored bytes of part-\S+: the bytes stored at .* are not the bytes sent/) });
    await publication.abort();
  } finally {
    await store.close();
  }
});

it('S3: a manifest that a store ignoring Content-MD5 keeps altered fails the date before _SUCCESS (69)', async () => {
  const store = await startOtherOrigin({ forwardTo: s3.endpoint, alterBody: (r) => (r.method === 'PUT' && r.path.includes('manifest.json') ? flipped(r.body) : r.body) });
  try {
    const target = await s3Target(store.url);
    const failed = await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson')).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'OUTPUT_UNAVAILABLE', message: expect.stringMatching(/failed while checking the stored bytes of the manifest: the bytes stored at \S+manifest.json are not the bytes sent/) });
    expect((await target.listFiles()).filter((f) => f.endsWith('_SUCCESS'))).toEqual([]);
  } finally {
    await store.close();
  }
});

/** A store whose ETags tell nothing (SSE-KMS, MinIO's --no-compat): 32 hex digits, no MD5 of anything. */
const opaqueEtags = (r: { method: string }, headers: IncomingHttpHeaders): IncomingHttpHeaders => (r.method === 'HEAD' && headers.etag ? { ...headers, etag: `"${randomBytes(16).toString('hex')}"` } : headers);

it('S3: a store whose ETags are no MD5 has each file read back instead: the bytes it kept publish (0), other bytes of the same size are caught (69)', async () => {
  let alter = false;
  const store = await startOtherOrigin({
    forwardTo: s3.endpoint,
    answerHeaders: opaqueEtags,
    alterBody: (r) => (alter && r.method === 'PUT' && r.path.includes('/part-') ? flipped(r.body) : r.body),
  });
  try {
    const target = await s3Target(store.url);
    const { manifest } = await writeExport(asyncRows(sampleRows(10)), options(target, 'ndjson', { runId: 'EARLIER' }));
    expect(manifest.rowCount).toBe(10);
    const gets = store.received.filter((r) => r.method === 'GET').map((r) => r.path.replace(/\?.*$/, '').replace(/^.*\//, '').replace(/^part-.*/, 'part'));
    expect(gets).toEqual(expect.arrayContaining(['part', 'manifest.json']));
    const published = await target.listFiles();
    expect(published.filter((f) => f.endsWith('_SUCCESS'))).toHaveLength(1);

    alter = true;
    const failed = await writeExport(asyncRows(sampleRows(50)), options(target, 'ndjson')).catch((e: unknown) => e);
    await expectEarlierKept(target, failed, published, /checking the stored bytes of part-\S+: the bytes stored at .* are not the bytes sent/);
  } finally {
    await store.close();
  }
});

it('S3: with the SDK\'s checksums on (AWS: WHEN_SUPPORTED) uploads carry its CRC32, not a Content-MD5 of their own', async () => {
  const store = await startOtherOrigin({ forwardTo: s3.endpoint, checkContentMd5: true });
  try {
    const destination = createS3Destination(`s3://${BUCKET}/sdk-checksums`, { ...connection(store.url), checksums: 'WHEN_SUPPORTED' });
    const publication = await destination.beginPublication({ dataset: 'messages', date: '2026-11-21' }, 'RUNA');
    await publication.writeDataFile(publication.dataFileName(0, 'csv.gz'), Readable.from([Buffer.from('a,b\n')]), 'text/csv');
    const put = store.received.find((r) => r.method === 'PUT')!;
    expect(put.headers['content-md5']).toBeUndefined();
    expect(put.headers['x-amz-checksum-crc32']).toEqual(expect.any(String));
    await publication.abort();
  } finally {
    await store.close();
  }
});

it('S3: no region anywhere (AWS_REGION, a profile, --s3-region) is a configuration error (78), not a store refusing the write (73)', async () => {
  const saved = { AWS_REGION: process.env.AWS_REGION, AWS_DEFAULT_REGION: process.env.AWS_DEFAULT_REGION, AWS_CONFIG_FILE: process.env.AWS_CONFIG_FILE, AWS_ENDPOINT_URL_S3: process.env.AWS_ENDPOINT_URL_S3 };
  delete process.env.AWS_REGION;
  delete process.env.AWS_DEFAULT_REGION;
  process.env.AWS_CONFIG_FILE = '/nonexistent/aws-config';
  // No endpoint in the settings (as for AWS); the SDK itself sends to the test server by its variable.
  process.env.AWS_ENDPOINT_URL_S3 = s3.endpoint;
  try {
    const destination = createS3Destination(`s3://${BUCKET}/noregion`, { credentials: connection().credentials });
    const failure = await destination.readManifest({ dataset: 'messages', date: '2026-11-21' }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringMatching(/^s3:\/\/chatport-out\/noregion\/_manifests\/messages\/dt=2026-11-21\/manifest.json cannot be used: no S3 region is set; set AWS_REGION, a profile's region, or --s3-region/) });
    expect(exitCodeFor(failure)).toBe(ExitCode.CONFIG);
  } finally {
    for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
  }
});
