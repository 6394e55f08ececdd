/**
 * Failures of the nightly export that are not chatport's bugs exit with their documented codes (never 1):
 * a damaged export file or manifest, a storage link refused or expired, redirects of every code the API may
 * send, S3 unreachable or refusing, a partly published run. The capability path of an export link never
 * reaches a message, a log line or stdout.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runExport, type RunExportOptions } from '../../src/pipeline/export/index.js';
import { describeFailure } from '../../src/cli/failure.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { openResumableRead } from '../../src/sources/resumable-read.js';
import { startOtherOrigin, type OtherOrigin } from '../helpers/other-origin.js';
import { chatportProcess } from '../helpers/cli-process.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { startCuttingProxy } from '../sources/cutting-proxy.js';
import { runCli } from './cli.js';
import { BED_DAY, startExportBed, type ExportBed } from './support.js';

const DATE = BED_DAY;
let bed: ExportBed;
let storage: OtherOrigin;
let answer: { status: number; bytes: Buffer } = { status: 200, bytes: Buffer.alloc(0) };
/** What the storage answers for a path; default `answer`. */
let answerFor: (path: string) => { status: number; bytes: Buffer } = () => answer;

beforeAll(async () => {
  bed = await startExportBed({}, { users: 2, messages: 3 });
  storage = await startOtherOrigin({
    respond: (request) => {
      const { status, bytes } = answerFor(request.path);
      return { status, headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) }, body: bytes };
    },
  });
});
afterAll(async () => {
  await storage.close();
  await bed.close();
});
beforeEach(() => {
  bed.sandbox.setFaults([]);
  answerFor = () => answer;
});

const toStorage = () => bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'redirect', status: 302, toOrigin: storage.url } }]);
const options = (extra: Partial<RunExportOptions> = {}): RunExportOptions => ({ datasets: ['users'], to: bed.tempDir(), format: 'csv', date: DATE, job: { pollIntervalMs: 5 }, ...extra });
const failureOf = (run: Promise<unknown>) => run.then(() => expect.fail('the export succeeded'), (error: unknown) => error);
const cliEnv = () => ({ CHATPORT_API_URL: bed.sandbox.url, CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId, CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret });

describe('the export file', () => {
  it('a gzip export cut short is a damaged file: exit 65 naming it, not an internal error', async () => {
    const csv = `id,name,createdTime\n${Array.from({ length: 3000 }, (_, i) => `${i + 1},user${i},2026-11-20T10:00:00Z`).join('\n')}\n`;
    const whole = gzipSync(csv);
    answer = { status: 200, bytes: whole.subarray(0, Math.floor(whole.length * 0.8)) };
    toStorage();
    const error = await failureOf(runExport(options(), { client: bed.client }));
    expect(exitCodeFor(error)).toBe(ExitCode.DATA_INVALID);
    expect((error as Error).message).toMatch(/^users export \(job \d+\) cannot be read: its gzip data is cut short or corrupt \(unexpected end of file\)/);
  });

  it('a 400 from the storage behind the link (an expired or malformed pre-signed URL) is an expired link: exit 75', async () => {
    answer = { status: 400, bytes: Buffer.from('<Error><Code>AuthorizationQueryParametersError</Code></Error>') };
    toStorage();
    const error = await failureOf(runExport(options(), { client: bed.client }));
    expect(error).toMatchObject({ code: 'API_EXPORT_URL_EXPIRED', status: 400 });
    expect(exitCodeFor(error)).toBe(ExitCode.TEMPORARY);
  });

  it('an expired link on the API origin exits 75 like one elsewhere, and its capability token reaches no output', async () => {
    bed.sandbox.setFaults([{ method: 'GET', path: '/_exports/**', fault: { kind: 'status', status: 403 } }]);
    bed.sandbox.clearRequests();
    const dir = bed.tempDir();
    const log = join(dir, 'termination-log');
    writeFileSync(log, '');
    const ran = await chatportProcess(['export', 'users', '--to', join(dir, 'out'), '--date', DATE, '--json', '--poll-interval', '0.01'], {
      ...cliEnv(),
      CHATPORT_LOG_LEVEL: 'trace',
      CHATPORT_TERMINATION_LOG: log,
    });
    const token = bed.sandbox.requests().find((r) => r.path.startsWith('/_exports/'))!.path.split('/')[2]!;
    expect(token.length).toBeGreaterThan(10);
    expect(ran.code).toBe(ExitCode.TEMPORARY);
    const output = `${ran.stdout}\n${ran.stderr}\n${readFileSync(log, 'utf8')}`;
    expect(output).not.toContain(token);
    expect(output).not.toContain('lacks a scope');
    expect(JSON.parse(ran.stdout)).toMatchObject({ error: { code: 'API_EXPORT_URL_EXPIRED', exitCode: 75, message: expect.stringMatching(/link .* refused the download \(403\): the link has expired/) } });
    expect(ran.stderr).toMatch(/GET \/…\/users-\d+\.csv|export link expired/);
  });

  it('stops reading once its consumer has gone: no request after the failure reaches the server', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 'x');
    let requests = 0;
    const server: Server = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-length': String(big.length) });
      res.end(big);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/file`;
    try {
      const stream = openResumableRead(
        async () => {
          const body = (await fetch(url)).body!;
          return { body: body as unknown as AsyncIterable<Uint8Array>, totalBytes: big.length };
        },
        { uri: 'test file', sleep: async () => undefined, baseDelayMs: 0 },
      );
      await new Promise<void>((resolve) => stream.once('data', () => resolve()));
      // As a failing pipeline does: the stream is destroyed with the failure.
      const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
      stream.on('error', () => undefined);
      stream.destroy(new Error('the run failed'));
      await closed;
      expect(requests).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('the published manifest', () => {
  for (const [what, text] of [['cut short', '{"dataset":"users","form'], ['null', 'null']] as const) {
    it(`one ${what} stops the run with exit 65, naming its path and the way out`, async () => {
      const root = bed.tempDir();
      const folder = join(root, '_manifests', 'users', `dt=${DATE}`);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'manifest.json'), text);
      const error = await failureOf(runExport(options({ to: root }), { client: bed.client }));
      expect(exitCodeFor(error)).toBe(ExitCode.DATA_INVALID);
      expect((error as Error).message).toContain(`the published manifest ${join(folder, 'manifest.json')} cannot be read`);
      expect((error as Error).message).toMatch(/Delete it .* run the export again to publish users 2026-11-21 afresh/);
    });
  }
});

describe('redirects', () => {
  it('every redirect code the API may send (301/302/303 too) repeats the request: token, start and download succeed', async () => {
    for (const status of [301, 302, 303] as const) {
      bed.sandbox.setFaults([{ path: '**', fault: { kind: 'redirect', status } }]);
      const result = await runCli(['export', 'all', '--to', bed.tempDir(), '--date', DATE, '--poll-interval', '0.01'], cliEnv());
      expect([status, result.exitCode, result.stderr]).toEqual([status, ExitCode.OK, '']);
    }
  });
});

describe('a partly published run', () => {
  it('--json names the datasets and dates already published when a later one fails', async () => {
    const messages = Buffer.from(`id,type,channelId,createdTime\n1,TEXT,5,${DATE}T10:00:00Z\n`);
    answerFor = (path) => (/\/users-[^/]*$/.test(path) ? { status: 404, bytes: Buffer.from('no such object') } : { status: 200, bytes: messages });
    toStorage();
    const result = await runCli(['export', 'all', '--to', bed.tempDir(), '--date', DATE, '--json', '--poll-interval', '0.01'], cliEnv());
    expect(result.exitCode).toBe(ExitCode.INPUT_MISSING);
    expect(describeFailure(result.error, { debug: false }).json.error.details).toMatchObject({ published: [{ dataset: 'messages', dates: [DATE] }] });
  });
});

describe('S3 output', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
    await s3.createBucket('warehouse');
  });
  afterAll(() => s3.close());

  const s3Export = (s3Options: RunExportOptions['s3'], bucket = 'warehouse') =>
    failureOf(runExport(options({ to: `s3://${bucket}/chat`, s3: s3Options }), { client: bed.client }));

  it('an endpoint that is down exits 69, refused credentials 77, a missing bucket 73 with a hint about the bucket', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const downPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };

    const down = await s3Export({ endpoint: `http://127.0.0.1:${downPort}`, region: s3.region, credentials });
    expect([exitCodeFor(down), (down as Error).message]).toEqual([ExitCode.UNAVAILABLE, expect.stringMatching(/unreachable or failing \(ECONNREFUSED\)/)]);
    // No run was killed: the first S3 call only looks for one (a run killed mid-publication) before anything else.
    expect((down as Error).message).toMatch(/^publishing s3:\/\/warehouse\/chat\/users\/dt=2026-11-21\/ failed while looking for a publication a killed run left half done, to finish it: S3 ListObjectsV2/);

    const refused = await s3Export({ endpoint: s3.endpoint, region: s3.region, credentials: { accessKeyId: 'AKIANOTKNOWN123456', secretAccessKey: 'not-the-secret-xyz' } });
    expect([exitCodeFor(refused), (refused as Error).message]).toEqual([ExitCode.AUTH, expect.stringMatching(/refused \(InvalidAccessKeyId, 403\)/)]);
    expect(describeFailure(refused, { debug: false }).text).not.toContain('not-the-secret-xyz');

    const missing = await s3Export({ endpoint: s3.endpoint, region: s3.region, credentials }, 'no-such-bucket');
    expect([exitCodeFor(missing), (missing as Error).message]).toEqual([ExitCode.CANT_CREATE, expect.stringMatching(/the bucket does not exist \(NoSuchBucket, 404\)/)]);
    expect(describeFailure(missing, { debug: false }).json.error.hint).toMatch(/bucket exists/);
  });

  it('a store that keeps throttling (429 SlowDown) exits 69, retry later, not 73', async () => {
    const throttling = await startOtherOrigin({
      respond: () => ({ status: 429, headers: { 'content-type': 'application/xml' }, body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>' }),
    });
    try {
      const slowed = await s3Export({ endpoint: throttling.url, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });
      expect([exitCodeFor(slowed), (slowed as Error).message]).toEqual([ExitCode.UNAVAILABLE, expect.stringMatching(/unreachable or failing \(SlowDown, 429\)/)]);
    } finally {
      await throttling.close();
    }
  });

  it('a published manifest whose download breaks midway is a store failing (69, retry), not a damaged manifest (65) nor a bug (1)', async () => {
    const credentials = { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey };
    const to = 's3://warehouse/cut-manifest';
    await runExport(options({ to, s3: { endpoint: s3.endpoint, region: s3.region, credentials } }), { client: bed.client });
    const proxy = await startCuttingProxy(Number(new URL(s3.endpoint).port), { pathPart: '/manifest.json', bodyBytes: 40, cuts: 1000 });
    try {
      const cut = await failureOf(runExport(options({ to, s3: { endpoint: proxy.endpoint, region: s3.region, credentials } }), { client: bed.client }));
      expect([exitCodeFor(cut), (cut as Error).message]).toEqual([ExitCode.UNAVAILABLE, expect.stringMatching(/manifest\.json.*unreachable or failing/)]);
    } finally {
      await proxy.close();
    }
  });

  it('an S3 endpoint that is no http(s) URL (a scheme forgotten) is configuration, exit 78 before any job, not 69 retried nor 73', async () => {
    const cases: Array<[string, Record<string, string>, string[]]> = [
      ['$AWS_ENDPOINT_URL_S3', { AWS_ENDPOINT_URL_S3: '127.0.0.1:9000' }, []],
      ['--s3-endpoint', {}, ['--s3-endpoint', 'localhost:9000']],
      ['--s3-endpoint', {}, ['--s3-endpoint', 'ftp://127.0.0.1:9000']],
      ['--s3-endpoint', {}, ['--s3-endpoint', 's3://AKIAKEY:hunter2-endpoint-pw@127.0.0.1:9000']],
    ];
    for (const [source, env, flags] of cases) {
      bed.sandbox.clearRequests();
      const ran = await runCli(['export', 'users', '--to', 's3://warehouse/bad-endpoint', '--date', DATE, '--json', ...flags], { ...cliEnv(), AWS_REGION: s3.region, ...env });
      expect([ran.exitCode, (ran.error as Error).message]).toEqual([ExitCode.CONFIG, expect.stringContaining(`${source} must be an http:// or https:// URL`)]);
      expect(bed.sandbox.requests().filter((r) => r.method === 'POST')).toEqual([]);
      expect(`${ran.stdout}${ran.stderr}${(ran.error as Error).message}`).not.toContain('hunter2-endpoint-pw');
    }
  });

  it('creating the sink S3 client prints no SDK warning on stderr (logs are JSON lines)', async () => {
    const probe = await new Promise<string>((resolve, reject) => {
      import('node:child_process').then(({ execFile }) =>
        execFile(process.execPath, ['--import', 'tsx', '-e', "import('./src/sinks/s3-client.ts').then((m) => m.createSinkS3Client({ endpoint: 'http://127.0.0.1:9' }))"], { cwd: join(import.meta.dirname, '..', '..') }, (error, _out, stderr) =>
          error ? reject(error) : resolve(stderr),
        ),
      );
    });
    expect(probe).toBe('');
  });
});
