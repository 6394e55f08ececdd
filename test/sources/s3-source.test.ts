import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createServer } from 'node:net';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exitCodeFor } from '../../src/shared/exit-codes.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInputSource, type InputObject } from '../../src/sources/index.js';
import { createS3Source } from '../../src/sources/s3-source.js';
import { InputMissingError, InterruptedError } from '../../src/shared/errors.js';
import { s3ClientConfig, startS3Server, type S3Server } from '../helpers/s3-server.js';
import { startCuttingProxy } from './cutting-proxy.js';
import { startOtherOrigin } from '../helpers/other-origin.js';
import { listUris, readAll } from './read-all.js';
import { describeSourceContract } from './source-contract.js';

const BUCKET = 'chatport-in';
let s3: S3Server;
let client: S3Client;
const big = randomBytes(3 * 1024 * 1024 + 17);
const gz = gzipSync(Buffer.from('{"a":1}\n{"a":2}\n'));

const connection = () => ({ endpoint: s3.endpoint, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket(BUCKET);
  client = s3.client();
  const put = (Key: string, Body: Uint8Array | string) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body }));
  // 23 keys under a prefix, listed with a page size of 5: five pages.
  await Promise.all(Array.from({ length: 23 }, (_, i) => put(`paged/part-${String(i).padStart(3, '0')}.csv`, `row ${i}\n`)));
  await put('paged/sub/extra.json', '[]');
  await put('folder/', '');
  await put('folder/x.ndjson.gz', gz);
  await put('big.bin', big);
  await put('odd/export [1].csv', 'id\n1\n');
  await put('odd/export 1.csv', 'id\n2\n');
});
afterAll(() => s3?.close());

describe('S3 source', () => {
  it('pages through a prefix listing in key order, skipping nothing', async () => {
    const uris = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { ...connection(), pageSize: 5 }));
    expect(uris).toHaveLength(24);
    expect(uris[0]).toBe(`s3://${BUCKET}/paged/part-000.csv`);
    expect(uris.at(-1)).toBe(`s3://${BUCKET}/paged/sub/extra.json`);
    expect([...uris].sort()).toEqual(uris);
  });

  it('matches a glob over keys while paging (* stays in one folder, ** crosses)', async () => {
    const flat = await listUris(createS3Source(`s3://${BUCKET}/paged/*.csv`, { ...connection(), pageSize: 4 }));
    expect(flat).toHaveLength(23);
    expect(flat.every((u) => u.endsWith('.csv'))).toBe(true);
    const deep = await listUris(createS3Source(`s3://${BUCKET}/**/*.{json,gz}`, { ...connection(), pageSize: 3 }));
    expect(deep).toEqual([`s3://${BUCKET}/folder/x.ndjson.gz`, `s3://${BUCKET}/paged/sub/extra.json`]);
  });

  it('reads one key, and treats a key that is not an object as a folder (skipping folder markers)', async () => {
    const inputs = [];
    for await (const input of createInputSource(`s3://${BUCKET}/folder`, { s3: connection() }).listInputs()) inputs.push(input);
    expect(inputs.map((i) => [i.uri, i.size])).toEqual([[`s3://${BUCKET}/folder/x.ndjson.gz`, gz.length]]);
    // gzip passes through untouched: decompression is the formats layer's job.
    expect((await readAll(inputs[0]!.open())).equals(gz)).toBe(true);
  });

  it('streams a multi-megabyte object byte for byte', async () => {
    for await (const input of createS3Source(`s3://${BUCKET}/big.bin`, connection()).listInputs()) {
      expect(input.size).toBe(big.length);
      expect((await readAll(input.open())).equals(big)).toBe(true);
    }
  });

  it('takes a key that exists as that object even when it reads as a glob', async () => {
    expect(await listUris(createS3Source(`s3://${BUCKET}/odd/export [1].csv`, connection()))).toEqual([`s3://${BUCKET}/odd/export [1].csv`]);
    expect(await listUris(createS3Source(`s3://${BUCKET}/odd/export [0-9].csv`, connection()))).toEqual([`s3://${BUCKET}/odd/export 1.csv`]);
  });

  it('names missing keys, prefixes, globs and buckets in InputMissingError', async () => {
    for (const location of [`s3://${BUCKET}/nope.csv`, `s3://${BUCKET}/nothing/`, `s3://${BUCKET}/paged/*.parquet`, 's3://no-such-bucket/x']) {
      const failure = listUris(createS3Source(location, connection()));
      await expect(failure).rejects.toBeInstanceOf(InputMissingError);
      await expect(listUris(createS3Source(location, connection()))).rejects.toThrow(location);
    }
  });

  it('says that the bucket does not exist, for a prefix and for a key, rather than that nothing is under it', async () => {
    for (const location of ['s3://no-such-bucket/users/', 's3://no-such-bucket/users.csv']) {
      const failure = await listUris(createS3Source(location, connection())).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(InputMissingError);
      expect((failure as Error).message).toBe(`input not found: ${location}: the bucket "no-such-bucket" does not exist`);
      expect(exitCodeFor(failure)).toBe(66);
    }
  });

  it('no region anywhere (AWS_REGION, a profile, s3.region) is a configuration error (exit 78), not a bug (exit 1)', async () => {
    const saved = { AWS_REGION: process.env.AWS_REGION, AWS_DEFAULT_REGION: process.env.AWS_DEFAULT_REGION, AWS_CONFIG_FILE: process.env.AWS_CONFIG_FILE };
    delete process.env.AWS_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    process.env.AWS_CONFIG_FILE = '/nonexistent/aws-config';
    // The client chatport builds for AWS (no endpoint in the settings) when no region is configured.
    const regionless = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, credentials: connection().credentials });
    try {
      const failure = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { client: regionless })).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: 'CONFIG_INVALID', message: `s3://${BUCKET}/paged/ cannot be used: no S3 region is set; set AWS_REGION, a profile's region, or s3.region in the pipeline file` });
      expect(exitCodeFor(failure)).toBe(78);
    } finally {
      regionless.destroy();
      for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name]; else process.env[name] = value;
    }
  });

  it('an unreachable store is INPUT_UNAVAILABLE (exit 69, retry), not a bug (exit 1)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { ...connection(), endpoint: `http://127.0.0.1:${port}` })).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'INPUT_UNAVAILABLE', message: expect.stringMatching(/s3:\/\/chatport-in\/paged\/ cannot be read: the S3 store is unreachable .*ECONNREFUSED/) });
    expect(exitCodeFor(failure)).toBe(69);
  });

  it('a store that accepts the connection and never answers is INPUT_UNAVAILABLE (exit 69), not a job hung forever', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const failure = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { ...connection(), endpoint, idleTimeoutMs: 300 })).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: 'INPUT_UNAVAILABLE', message: expect.stringMatching(/unreachable or failing \(TimeoutError/) });
      expect(exitCodeFor(failure)).toBe(69);
    } finally {
      silent.close();
    }
  }, 30_000);

  // SIGTERM while a listing or a read waits on a store that does not answer: the run must stop within the
  // grace period (143, state saved), not wait out the idle limit and its retries until SIGKILL.
  it('an abort stops a listing and a read that wait on a silent store at once, with the abort reason', async () => {
    const seen: string[] = [];
    const stalling = createHttpServer((request, response) => {
      seen.push(request.method ?? '');
      if (request.method === 'HEAD') {
        response.writeHead(200, { 'content-length': '100', etag: '"e1"' }).end();
        return;
      }
      // GET: a listing gets nothing at all; the object's body stops after 10 of its 100 bytes.
      if (request.url?.includes('list-type=2')) return;
      response.writeHead(200, { 'content-length': '100', etag: '"e1"' });
      response.write('id\n1\n2\n3\n4');
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
    const abortWhen = (method: string, controller: AbortController) => {
      const timer = setInterval(() => {
        if (seen.includes(method)) {
          clearInterval(timer);
          controller.abort(new InterruptedError('SIGTERM'));
        }
      }, 5);
    };
    try {
      const listing = new AbortController();
      abortWhen('GET', listing);
      const listed = await listUris(createS3Source(`s3://${BUCKET}/some/prefix/`, { ...connection(), endpoint, signal: listing.signal })).catch((e: unknown) => e);
      expect(listed).toBeInstanceOf(InterruptedError);
      seen.length = 0;
      const reading = new AbortController();
      const source = createS3Source(`s3://${BUCKET}/one.csv`, { ...connection(), endpoint, signal: reading.signal });
      let object: InputObject | undefined;
      for await (const input of source.listInputs()) object ??= input;
      abortWhen('GET', reading);
      const read = await readAll(object!.open()).catch((e: unknown) => e);
      expect(read).toBeInstanceOf(InterruptedError);
      expect(exitCodeFor(read)).toBe(143);
    } finally {
      stalling.closeAllConnections();
      stalling.close();
    }
  }, 20_000);

  it('a store that keeps throttling (429 SlowDown) is INPUT_UNAVAILABLE (exit 69, retry), not a bug (exit 1)', async () => {
    const throttling = await startOtherOrigin({
      respond: () => ({ status: 429, headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>' }),
    });
    try {
      const failure = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { ...connection(), endpoint: throttling.url })).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: 'INPUT_UNAVAILABLE', message: expect.stringMatching(/unreachable or failing \(SlowDown, 429\)/) });
      expect(exitCodeFor(failure)).toBe(69);
    } finally {
      await throttling.close();
    }
  });

  it('a store throttling with 403 SlowDown or Throttling is INPUT_UNAVAILABLE (exit 69, retry), not a credentials problem (77)', async () => {
    for (const code of ['SlowDown', 'Throttling']) {
      const throttling = await startOtherOrigin({
        respond: () => ({ status: 403, headers: { 'content-type': 'application/xml' }, body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>Please reduce your request rate.</Message></Error>` }),
      });
      try {
        const failure = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { ...connection(), endpoint: throttling.url })).catch((e: unknown) => e);
        expect(failure).toMatchObject({ code: 'INPUT_UNAVAILABLE', message: expect.stringContaining(`unreachable or failing (${code}, 403)`) });
        expect(exitCodeFor(failure)).toBe(69);
      } finally {
        await throttling.close();
      }
    }
  });

  it('a store refusing the request (301 PermanentRedirect: another region) is INPUT_REFUSED (exit 78, settings), not a bug (exit 1)', async () => {
    const otherRegion = await startOtherOrigin({
      respond: () => ({ status: 301, headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message></Error>' }),
    });
    try {
      for (const location of [`s3://${BUCKET}/paged/`, `s3://${BUCKET}/big.bin`]) {
        const failure = await listUris(createS3Source(location, { ...connection(), endpoint: otherRegion.url })).catch((e: unknown) => e);
        expect(failure).toMatchObject({ code: 'INPUT_REFUSED', message: expect.stringMatching(/the S3 store refused the request \(.*, 301\); check the bucket, the region/) });
        expect(exitCodeFor(failure)).toBe(78);
      }
    } finally {
      await otherRegion.close();
    }
  });

  it('a listing page that says "truncated" without a continuation token stops the run (69) instead of skipping the keys after it', async () => {
    const page = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${BUCKET}</Name><Prefix>paged/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated><Contents><Key>paged/part-000.csv</Key><Size>6</Size></Contents></ListBucketResult>`;
    const store = await startOtherOrigin({ respond: () => ({ status: 200, headers: { 'content-type': 'application/xml' }, body: page }) });
    try {
      const failure = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { ...connection(), endpoint: store.url })).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: 'INPUT_UNAVAILABLE', message: `listing s3://${BUCKET}/paged/ cannot go on: the S3 store says there are more keys but gives no continuation token` });
      expect(exitCodeFor(failure)).toBe(69);
    } finally {
      await store.close();
    }
  });

  it('no credentials found by the SDK chain is INPUT_FORBIDDEN (exit 77), not a bug (exit 1)', async () => {
    // What the SDK's default chain throws when no environment, profile or role gives credentials.
    const none = () => Promise.reject(Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }));
    const noCredentials = new S3Client({ ...s3ClientConfig(s3), credentials: none });
    try {
      const failure = await listUris(createS3Source(`s3://${BUCKET}/paged/`, { client: noCredentials })).catch((e: unknown) => e);
      expect(failure).toMatchObject({ code: 'INPUT_FORBIDDEN', message: expect.stringMatching(/^access to s3:\/\/chatport-in\/paged\/ was denied \(CredentialsProviderError\)/) });
      expect(exitCodeFor(failure)).toBe(77);
    } finally {
      noCredentials.destroy();
    }
  });

  it('continues a read broken midway with a Range request from the byte it reached', async () => {
    const port = Number(new URL(s3.endpoint).port);
    const proxy = await startCuttingProxy(port, { pathPart: '/big.bin', bodyBytes: 1_000_000, cuts: 2 });
    try {
      const resumes: number[] = [];
      const source = createS3Source(`s3://${BUCKET}/big.bin`, {
        ...connection(),
        endpoint: proxy.endpoint,
        resumeDelayMs: 1,
        onResume: ({ offset }) => resumes.push(offset),
      });
      for await (const input of source.listInputs()) expect((await readAll(input.open())).equals(big)).toBe(true);
      expect(resumes).toEqual([1_000_000, 2_000_000]);
      const gets = proxy.requests.filter((r) => r.startsWith('GET ') && r.includes('/big.bin'));
      expect(gets).toHaveLength(3);
      expect(gets[0]).not.toMatch(/^range:/im);
      expect(gets[1]).toMatch(/^range: bytes=1000000-$/im);
      expect(gets[2]).toMatch(/^range: bytes=2000000-$/im);
    } finally {
      await proxy.close();
    }
  });

  it('a resume answered with the whole object (a store that ignores Range) continues from the byte it reached, not from 0', async () => {
    const port = Number(new URL(s3.endpoint).port);
    const proxy = await startCuttingProxy(port, { pathPart: '/big.bin', bodyBytes: 1_000_000, cuts: 1, stripHeaders: ['range'] });
    try {
      const source = createS3Source(`s3://${BUCKET}/big.bin`, { ...connection(), endpoint: proxy.endpoint, resumeDelayMs: 1 });
      for await (const input of source.listInputs()) {
        const read = await readAll(input.open());
        expect(read.length).toBe(big.length);
        expect(read.equals(big)).toBe(true);
      }
    } finally {
      await proxy.close();
    }
  });

  it('a resume that meets another version of the object (a store that ignores If-Match) is INPUT_CHANGED, not two versions stitched', async () => {
    const port = Number(new URL(s3.endpoint).port);
    const before = randomBytes(2 * 1024 * 1024);
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'replaced.bin', Body: before }));
    const proxy = await startCuttingProxy(port, { pathPart: '/replaced.bin', bodyBytes: 1_000_000, cuts: 1, stripHeaders: ['if-match'] });
    try {
      // The object is replaced while the reader waits to resume.
      const replace = () => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'replaced.bin', Body: randomBytes(before.length) })).then(() => undefined);
      const source = createS3Source(`s3://${BUCKET}/replaced.bin`, { ...connection(), endpoint: proxy.endpoint, sleep: replace });
      for await (const input of source.listInputs()) {
        await expect(readAll(input.open())).rejects.toMatchObject({ code: 'INPUT_CHANGED', details: { uri: `s3://${BUCKET}/replaced.bin` } });
      }
    } finally {
      await proxy.close();
    }
  });

  it('a resume the store answers with 400 RequestTimeout (transient, as the SDK retries it) is resumed again, not INPUT_REFUSED (78)', async () => {
    const object = randomBytes(64 * 1024);
    const store = await startFlakyStore(object, 3);
    try {
      const resumes: number[] = [];
      const source = createS3Source(`s3://${BUCKET}/flaky.bin`, { ...connection(), endpoint: store.url, resumeDelayMs: 1, onResume: ({ offset }) => resumes.push(offset) });
      for await (const input of source.listInputs()) expect((await readAll(input.open())).equals(object)).toBe(true);
      // The cut, then the resume that met RequestTimeout (after the SDK's own retries), then the one that read the rest.
      expect(resumes).toEqual([object.length / 2, object.length / 2]);
      expect(store.timeouts()).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('gives up with INPUT_READ_FAILED when every attempt breaks', async () => {
    const port = Number(new URL(s3.endpoint).port);
    const proxy = await startCuttingProxy(port, { pathPart: '/big.bin', bodyBytes: 0, cuts: 1000 });
    try {
      const source = createS3Source(`s3://${BUCKET}/big.bin`, { ...connection(), endpoint: proxy.endpoint, resumeDelayMs: 1, maxResumes: 2 });
      for await (const input of source.listInputs()) {
        await expect(readAll(input.open())).rejects.toMatchObject({ code: 'INPUT_READ_FAILED', transient: true, details: { uri: `s3://${BUCKET}/big.bin`, offset: 0 } });
      }
      // The first attempt and two resumes.
      expect(proxy.requests.filter((r) => r.startsWith('GET ') && r.includes('/big.bin'))).toHaveLength(3);
    } finally {
      await proxy.close();
    }
  });
});

/**
 * A one-object S3 store on 127.0.0.1 whose first GET breaks after half the body and whose first
 * `timeouts` ranged GETs answer 400 RequestTimeout, as S3 does for a request it gave up waiting on.
 */
async function startFlakyStore(object: Buffer, timeouts: number): Promise<{ url: string; timeouts(): number; close(): Promise<void> }> {
  let timedOut = 0;
  const etag = '"flaky-1"';
  const server: Server = createHttpServer((req, res) => {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': object.length, etag }).end();
    } else if (!range) {
      res.writeHead(200, { 'content-length': object.length, etag });
      res.write(object.subarray(0, object.length / 2), () => res.destroy());
    } else if (timedOut < timeouts) {
      timedOut++;
      res.writeHead(400, { 'content-type': 'application/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>RequestTimeout</Code><Message>Your socket connection to the server was not read from or written to within the timeout period.</Message></Error>');
    } else {
      const start = Number(range[1]);
      res.writeHead(206, { 'content-length': object.length - start, 'content-range': `bytes ${start}-${object.length - 1}/${object.length}`, etag }).end(object.subarray(start));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    timeouts: () => timedOut,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describeSourceContract('S3', () => ({
  async put(path, bytes) {
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `contract/${path}`, Body: bytes }));
  },
  source: (location) => createInputSource(`s3://${BUCKET}/contract/${location}`, { s3: connection() }),
  uri: (path) => `s3://${BUCKET}/contract/${path}`,
}));
