import { compareInt64 } from '../../src/shared/int64.js';
import { mkdir } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { startOtherOrigin } from '../helpers/other-origin.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { generatedPipelineYaml } from '../../fixtures/csv-generated/pipeline.js';
import { all, generateCsvs, interruptInMessages, startImportFixture, writeCsvs, writeInput, writePipeline, type ImportFixture } from './support.js';

let f: ImportFixture;
let s3: S3Server;
beforeAll(async () => {
  [f, s3] = await Promise.all([startImportFixture(), startS3Server()]);
  // The S3 source uses the SDK's default credential chain, as in production.
  process.env.AWS_ACCESS_KEY_ID = s3.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = s3.secretAccessKey;
});
afterAll(async () => {
  await Promise.all([f.close(), s3.close()]);
});

describe('import from every format, gzip, globs and S3 prefixes', () => {
  it('reads NDJSON (plain and gzip, by glob), a JSON array, and CSV objects under an S3 prefix', async () => {
    const dir = join(f.dir, 'formats');
    await writeInput(dir, 'users-1.ndjson', '{"id":"a","handle":"nd-ann","name":"Ann"}\n{"id":"b","handle":"nd-ben","name":"Ben"}\nnot json\n');
    await writeInput(dir, 'users-2.ndjson.gz', gzipSync('{"id":"c","handle":"nd-cat","name":"Cat"}\n'));
    await writeInput(dir, 'channels.json', JSON.stringify([{ key: 'k1', name: 'nd-general', members: ['nd-ann', 'nd-ben', 'nd-cat'] }, { key: 'k2', type: 'DIRECT', members: ['nd-ann', 'nd-ben'] }]));
    await s3.createBucket('imports');
    const put = (key: string, body: Buffer | string) => s3.client().send(new PutObjectCommand({ Bucket: 'imports', Key: key, Body: body }));
    // A BOM, CRLF line ends and a quoted newline in the first object; the second is gzipped.
    await put('messages/part-1.csv', '\uFEFFid,channel,author,text\r\nm1,k1,nd-ann,"two\r\nlines"\r\nm2,k2,nd-ben,in the DM\r\n');
    await put('messages/part-2.csv.gz', gzipSync('id,channel,author,text\nm3,k1,nd-cat,third\nm4,k9,nd-cat,unknown channel\n'));
    await put('other/ignored.csv', 'id,channel,author,text\nm9,k1,nd-ann,not under the prefix\n');

    const { config } = await writePipeline(dir, `name: formats
s3: { endpoint: "${s3.endpoint}", region: us-east-1 }
stages:
  users:
    source: { path: "users-*" }
    key: id
    mapping: { name: handle, displayName: name, isGuest: { const: false } }
  channels:
    source: { path: channels.json }
    key: key
    mapping: { type: { field: type, default: PUBLIC }, name: name, members: members }
  messages:
    source: { path: "s3://imports/messages/" }
    key: id
    channel: channel
    mapping: { type: { const: TEXT }, body: text, user: author }
`);
    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 4, imported: 3, rejected: 1 });
    expect(report.stages.channels).toMatchObject({ read: 2, imported: 2 });
    expect(report.stages.messages).toMatchObject({ read: 4, imported: 3, rejected: 1 });
    expect(report.totals.balanced).toBe(true);

    const channels = await all(f.client.channels.list());
    const general = channels.find((c) => c.name === 'nd-general')!;
    const bodies = (await all(f.client.channels.messages(general.id))).sort((a, b) => compareInt64(a.id, b.id)).map((m) => m.body);
    expect(bodies).toEqual(['two\r\nlines', 'third']);
    const dm = channels.find((c) => c.type === 'DIRECT')!;
    expect((await all(f.client.channels.messages(dm.id))).map((m) => m.body)).toEqual(['in the DM']);
  });
});

describe('an interrupted import whose S3 input was replaced before the resume', () => {
  it('stops with INPUT_CHANGED when an object of a stage it finished reading was replaced by one of the same size', async () => {
    const { dir, csv, putUsers } = await usersOnS3('s3-same-size', 'resume-in', 'sss-');
    const { config } = await writePipeline(dir, usersOnS3Pipeline('s3-same-size', 'resume-in', s3.endpoint));
    const state = join(dir, 'state');
    expect(await interruptInMessages(f, config, state)).toBeInstanceOf(Error);

    // Another export of the users landed under the same key: same size, other display names (User → Uxer).
    const replaced = csv.users.replaceAll('User ', 'Uxer ');
    expect(replaced.length).toBe(csv.users.length);
    await putUsers(replaced);
    const changed = await runImport({ config, stateDir: state }, { client: f.client }).catch((e: unknown) => e);
    expect(changed).toMatchObject({ code: 'INPUT_CHANGED', details: { stage: 'users' } });
    expect((changed as Error).message).toMatch(/^the users input changed since the interrupted run read it \(the same count and bytes, other names, sizes or versions\)/);
    expect(exitCodeFor(changed)).toBe(ExitCode.DATA_INVALID);

    // The original bytes back (the same ETag: an MD5 of them): the run resumes and ends as an uninterrupted one.
    await putUsers(csv.users);
    const resumed = await runImport({ config, stateDir: state }, { client: f.client });
    expect(resumed.stages.messages).toMatchObject({ read: 200, imported: 200 });
  });
});

describe('an S3 object replaced after the run listed it but before its stage read it', () => {
  it('is no INPUT_CHANGED on resume: the stage read the new object, which is what the resume finds', async () => {
    const { dir, csv, putUsers } = await usersOnS3('s3-replaced-early', 'replaced-early', 'sre-');
    // After the pre-flight listed and opened users.csv, and before anything else lists it, another export
    // of the users lands under its key (same size, other display names): every read from then on gets it.
    let listings = 0;
    const store = await startOtherOrigin({
      forwardTo: s3.endpoint,
      beforeForward: async (r) => {
        if (r.method === 'GET' && r.path.includes('list-type=2') && r.path.includes('prefix=users') && ++listings === 2) await putUsers(csv.users.replaceAll('User ', 'Uxer '));
      },
    });
    try {
      const { config } = await writePipeline(dir, usersOnS3Pipeline('s3-replaced-early', 'replaced-early', store.url));
      const state = join(dir, 'state');
      expect(await interruptInMessages(f, config, state)).toBeInstanceOf(Error);
      expect(listings).toBeGreaterThanOrEqual(2);
      const resumed = await runImport({ config, stateDir: state }, { client: f.client });
      expect(resumed.stages.messages).toMatchObject({ read: 200, imported: 200 });
    } finally {
      await store.close();
    }
  });
});

/** Generated CSVs: users in bucket `bucket` (users/users.csv, `putUsers` replaces it), the rest local. */
async function usersOnS3(name: string, bucket: string, prefix: string) {
  const dir = join(f.dir, name);
  const csv = generateCsvs({ users: 3, channels: 2, messages: 200 }, prefix);
  await writeCsvs(dir, { channels: csv.channels, messages: csv.messages });
  await s3.createBucket(bucket);
  const putUsers = (text: string) => s3.client().send(new PutObjectCommand({ Bucket: bucket, Key: 'users/users.csv', Body: text }));
  await putUsers(csv.users);
  return { dir, csv, putUsers };
}

function usersOnS3Pipeline(name: string, bucket: string, endpoint: string): string {
  const pipeline = generatedPipelineYaml({ name, options: 'chunkRecords: 20\n  concurrency: 1', usersSource: `{ path: "s3://${bucket}/users/" }` });
  return `${pipeline}s3: { endpoint: "${endpoint}", region: us-east-1 }\n`;
}

/** A bucket `name` with one user under users/, and a users-only pipeline over it (`s3Block`: its s3 block, if any). */
async function oneUserOnS3(name: string, s3Block = '') {
  const dir = join(f.dir, name);
  await mkdir(dir, { recursive: true });
  await s3.createBucket(name);
  await s3.client().send(new PutObjectCommand({ Bucket: name, Key: 'users/u.csv', Body: `id,username,display\nu1,${name}-1,One\n` }));
  const { config } = await writePipeline(dir, `name: ${name}
${s3Block}
stages:
  users:
    source: { path: "s3://${name}/users/" }
    key: id
    mapping: { name: username, displayName: display, isGuest: { const: false } }
`);
  return { config, stateDir: join(dir, 'state') };
}

/** The test server by a host name: virtual-hosted addressing would ask for "<bucket>.localhost". */
const byHostName = () => s3.endpoint.replace('127.0.0.1', 'localhost');

describe('an S3-compatible store at a host name endpoint, as MinIO at http://minio:9000', () => {
  it('reads with path-style addressing when AWS_ENDPOINT_URL_S3 alone names it (no s3 block), as the export does', async () => {
    const run = await oneUserOnS3('env-endpoint');
    process.env.AWS_ENDPOINT_URL_S3 = byHostName();
    try {
      const report = await runImport(run, { client: f.client });
      expect(report.stages.users).toMatchObject({ read: 1, imported: 1 });
    } finally {
      delete process.env.AWS_ENDPOINT_URL_S3;
    }
  });

  it('an endpoint that is no http(s) URL (the scheme forgotten) is configuration (78) before any upload, not 69 retried', async () => {
    const run = await oneUserOnS3('bad-endpoint');
    process.env.AWS_ENDPOINT_URL_S3 = byHostName().replace(/^http:\/\//, '');
    try {
      const error = await runImport(run, { client: f.client }).then(() => expect.fail('the import succeeded'), (e: unknown) => e);
      expect([exitCodeFor(error), (error as Error).message]).toEqual([ExitCode.CONFIG, expect.stringMatching(/^\$AWS_ENDPOINT_URL_S3 must be an http:\/\/ or https:\/\/ URL/)]);
    } finally {
      delete process.env.AWS_ENDPOINT_URL_S3;
    }
  });

  it('reads with path-style addressing when the s3 block names it and says nothing of forcePathStyle', async () => {
    const run = await oneUserOnS3('block-endpoint', `s3: { endpoint: "${byHostName()}" }`);
    const report = await runImport(run, { client: f.client });
    expect(report.stages.users).toMatchObject({ read: 1, imported: 1 });
  });
});
