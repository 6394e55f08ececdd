/**
 * Publishing: to S3 (a real s3rver) and to a local directory, re-runs of the same date leave exactly one
 * copy; hyparquet (a different Parquet implementation from the writer) reads what was published.
 */
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { successSummary } from '../../src/cli/commands/export-termination-log.js';
import { formatExportReport, runExport, type RunExportOptions } from '../../src/pipeline/export/index.js';
import type { ExportManifest } from '../../src/sinks/index.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { runCli } from './cli.js';
import { listFiles, readDataset, readParquetFile } from './read-output.js';
import { expectedMessageRows, pick, startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
let s3: S3Server;
let s3client: S3Client;
const DATE = '2026-11-21';
/** An S3 data key: the run's prefix, the attempt's tag, the sequence. */
const S3_PART = (prefix: string, extension: string) => new RegExp(`^${prefix}-[0-9a-f]{8}-00000\\.${extension}$`);

beforeAll(async () => {
  [bed, s3] = await Promise.all([startExportBed(), startS3Server()]);
  await s3.createBucket('warehouse');
  s3client = s3.client();
});
afterAll(async () => {
  await bed.close();
  await s3.close();
});

const s3Options = () => ({ endpoint: s3.endpoint, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } });

async function listKeys(prefix: string): Promise<string[]> {
  const page = await s3client.send(new ListObjectsV2Command({ Bucket: 'warehouse', Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
}

async function getBytes(key: string): Promise<Uint8Array> {
  const object = await s3client.send(new GetObjectCommand({ Bucket: 'warehouse', Key: key }));
  return object.Body!.transformToByteArray();
}

it('publishes Parquet to S3; the same date again leaves exactly one copy, from the second run', async () => {
  const base: RunExportOptions = { datasets: ['messages', 'users'], to: 's3://warehouse/chat', format: 'parquet', date: DATE, s3: s3Options(), job: { pollIntervalMs: 5 } };
  await runExport({ ...base, runId: 'first' }, { client: bed.client });
  expect(await listKeys('chat/messages/')).toEqual([`chat/messages/dt=${DATE}/_SUCCESS`, expect.stringMatching(S3_PART(`chat/messages/dt=${DATE}/part-first`, 'parquet'))]);
  const second = await runExport({ ...base, runId: 'second' }, { client: bed.client });
  expect(second.status).toBe('succeeded');

  expect(await listKeys('chat/')).toEqual([
    `chat/_manifests/messages/dt=${DATE}/manifest.json`,
    `chat/_manifests/users/dt=${DATE}/manifest.json`,
    `chat/messages/dt=${DATE}/_SUCCESS`,
    expect.stringMatching(S3_PART(`chat/messages/dt=${DATE}/part-second`, 'parquet')),
    `chat/users/dt=${DATE}/_SUCCESS`,
    expect.stringMatching(S3_PART(`chat/users/dt=${DATE}/part-second`, 'parquet')),
  ]);
  const manifest = JSON.parse(Buffer.from(await getBytes(`chat/_manifests/messages/dt=${DATE}/manifest.json`)).toString('utf8')) as ExportManifest;
  expect(manifest).toMatchObject({ runId: 'second', rowCount: bed.messages.length });
  const key = `chat/messages/dt=${DATE}/${manifest.files[0]!.name}`;
  expect(await listKeys('chat/messages/')).toContain(key);
  expect(manifest.entries).toEqual([
    { url: `s3://warehouse/${key}`, mandatory: true, meta: { content_length: manifest.files[0]!.bytes, record_count: bed.messages.length } },
  ]);
  const { rows } = await readParquetFile(await getBytes(key));
  const expected = expectedMessageRows(bed.messages);
  expect(rows).toHaveLength(expected.size);
  for (const row of rows) expect(pick(row, expected.get(row.id as bigint)!)).toEqual(expected.get(row.id as bigint));
});

it('a local re-run of the same date replaces the output instead of adding to it', async () => {
  const root = bed.tempDir();
  const base: RunExportOptions = { datasets: ['messages'], to: root, format: 'ndjson', date: DATE, job: { pollIntervalMs: 5 } };
  await runExport({ ...base, runId: 'one' }, { client: bed.client });
  expect(listFiles(root)).toContain(`messages/dt=${DATE}/part-one-00000.ndjson.gz`);
  await runExport({ ...base, runId: 'two' }, { client: bed.client });
  expect(listFiles(root)).toEqual([`_manifests/messages/dt=${DATE}/manifest.json`, `messages/dt=${DATE}/_SUCCESS`, `messages/dt=${DATE}/part-two-00000.ndjson.gz`]);
  expect(await readDataset(root, 'messages', DATE)).toHaveLength(bed.messages.length);
});

it('an independent reader (hyparquet) reads the Parquet of two dates through the Hive layout, with the declared types and values', async () => {
  const root = bed.tempDir();
  for (const date of ['2026-11-20', '2026-11-21']) await runExport({ datasets: ['messages', 'users'], to: root, format: 'parquet', date, runId: `r${date.slice(-2)}`, job: { pollIntervalMs: 5 } }, { client: bed.client });
  // What a warehouse engine does with the Hive layout: one table, `dt` from the folder name.
  const files = listFiles(root).filter((f) => /^users\/dt=[\d-]+\/.*\.parquet$/.test(f));
  expect(files.map((f) => f.split('/')[1])).toEqual(['dt=2026-11-20', 'dt=2026-11-21']);
  for (const file of files) {
    const { rows, schema } = await readParquetFile(readFileSync(join(root, file)));
    const types = Object.fromEntries(schema.slice(1).map((c) => [c.name, [c.type, c.logical_type?.type ?? c.converted_type ?? '', c.repetition_type]]));
    expect(types).toEqual({
      id: ['INT64', '', 'REQUIRED'], name: ['BYTE_ARRAY', 'STRING', 'OPTIONAL'], display_name: ['BYTE_ARRAY', 'STRING', 'OPTIONAL'],
      type: ['BYTE_ARRAY', 'STRING', 'OPTIONAL'], is_guest: ['BOOLEAN', '', 'OPTIONAL'], created_time: ['INT64', 'TIMESTAMP', 'OPTIONAL'],
      channels_count: ['INT64', '', 'OPTIONAL'], messages_count: ['INT64', '', 'OPTIONAL'], last_message_time: ['INT64', 'TIMESTAMP', 'OPTIONAL'],
    });
    // Timestamps are UTC-adjusted microseconds, never nanoseconds.
    for (const c of schema.filter((e) => e.logical_type?.type === 'TIMESTAMP'))
      expect(c.logical_type).toMatchObject({ isAdjustedToUTC: true, unit: 'MICROS' });
    expect(rows).toHaveLength(bed.users.length);
    expect(rows.filter((r) => r.is_guest === true)).toHaveLength(bed.users.filter((u) => u.isGuest).length);
  }
  const messages = (await readDataset(root, 'messages', '2026-11-21')).sort((a, b) => Number((a.id as bigint) - (b.id as bigint)));
  const expected = [...expectedMessageRows(bed.messages).values()].sort((a, b) => Number((a.id as bigint) - (b.id as bigint)));
  expect(messages.map((m) => ({ id: m.id, created: m.created_time, body_length: m.body_length, username: m.username }))).toEqual(
    expected.map((m) => ({ id: m.id, created: m.created_time, body_length: m.body_length, username: m.username })),
  );
});

it('the CLI with --pipeline publishes to S3: the file gives the settings, env the date, flags win', async () => {
  const dir = bed.tempDir();
  const pipeline = join(dir, 'nightly.yaml');
  writeFileSync(
    pipeline,
    ['kind: export', 'datasets: [users]', 'to: s3://warehouse/${PREFIX:-piped}', 'format: csv', 'date: today', 's3:', '  endpoint: ${S3_ENDPOINT}', 'job:', '  pollIntervalSeconds: 0.01', 'api:', '  url: ${API}'].join('\n'),
  );
  const env = {
    API: bed.sandbox.url,
    S3_ENDPOINT: s3.endpoint,
    CHATPORT_CLIENT_ID: bed.sandbox.credentials.clientId,
    CHATPORT_CLIENT_SECRET: bed.sandbox.credentials.clientSecret,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    CHATPORT_EXPORT_DATE: '2026-11-19T03:00:00Z',
  };
  const result = await runCli(['export', '--pipeline', pipeline, '--format', 'parquet', '--run-id', 'piped'], env);
  expect(result.error).toBeUndefined();
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toMatch(/export piped for 2026-11-19 → s3:\/\/warehouse\/piped \(parquet\): succeeded/);
  expect(await listKeys('piped/')).toEqual([
    'piped/_manifests/users/dt=2026-11-19/manifest.json',
    'piped/users/dt=2026-11-19/_SUCCESS',
    expect.stringMatching(S3_PART('piped/users/dt=2026-11-19/part-piped', 'parquet')),
  ]);
  const broken = join(dir, 'broken.yaml');
  writeFileSync(broken, 'kind: export\nto: /tmp/x\nformat: xlsx\n');
  expect((await runCli(['export', '--pipeline', broken], env)).exitCode).toBe(78);
});

it.each(['s3', 'local'] as const)('%s: a run for another date reports a date a killed run left without _SUCCESS, and leaves it to a run of that date', async (where) => {
  const root = where === 's3' ? 's3://warehouse/killed' : bed.tempDir();
  const base: RunExportOptions = { datasets: ['messages'], to: root, format: 'ndjson', date: DATE, job: { pollIntervalMs: 5 }, ...(where === 's3' ? { s3: s3Options() } : {}) };
  await runExport({ ...base, runId: 'first' }, { client: bed.client });
  // Killed while publishing DATE again: the date's _SUCCESS was already down.
  if (where === 's3') await s3client.send(new DeleteObjectCommand({ Bucket: 'warehouse', Key: `killed/messages/dt=${DATE}/_SUCCESS` }));
  else rmSync(join(root, `messages/dt=${DATE}/_SUCCESS`));

  const next = await runExport({ ...base, date: '2026-11-22', runId: 'next' }, { client: bed.client });
  expect(next.unfinishedDates).toEqual([{ dataset: 'messages', date: DATE }]);
  expect(formatExportReport(next)).toContain(`messages: warning: dt=${DATE} has no _SUCCESS: a run killed while publishing it left it so (or one publishes it now); readers ignore it until that date is exported again`);
  expect(successSummary(next, 0)).toMatchObject({ unfinished: [{ dataset: 'messages', date: DATE }] });
  // Another date's run does not finish it: a run of that date may be writing it right now.
  const marked = where === 's3' ? (await listKeys(`killed/messages/dt=${DATE}/`)).some((k) => k.endsWith('/_SUCCESS')) : existsSync(join(root, `messages/dt=${DATE}/_SUCCESS`));
  expect(marked).toBe(false);

  const again = await runExport({ ...base, runId: 'again' }, { client: bed.client });
  expect(again.unfinishedDates).toEqual([]);
  expect(successSummary(again, 0)).not.toHaveProperty('unfinished');
});
