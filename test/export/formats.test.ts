import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../src/pipeline/export/index.js';
import type { OutputFormat } from '../../src/sinks/index.js';
import { listFiles, readDataset, readManifest, readParquetFile } from './read-output.js';
import { expectedMessageRows, expectedUserRows, pick, startExportBed, type ExportBed } from './support.js';

let bed: ExportBed;
const DATE = '2026-11-21';

beforeAll(async () => {
  bed = await startExportBed();
});
afterAll(() => bed.close());

const EXT: Record<OutputFormat, string> = { parquet: 'parquet', ndjson: 'ndjson.gz', csv: 'csv.gz' };

describe.each(['parquet', 'ndjson', 'csv'] as const)('export all as %s to a local directory', (format) => {
  let root: string;
  let report: Awaited<ReturnType<typeof runExport>>;

  beforeAll(async () => {
    root = bed.tempDir();
    report = await runExport(
      { datasets: ['messages', 'users'], to: root, format, date: DATE, runId: `run-${format}`, job: { pollIntervalMs: 5 } },
      { client: bed.client },
    );
  });

  it('counts every row: read = written, nothing rejected, jobs and API version reported', () => {
    expect(report.status).toBe('succeeded');
    expect(report.apiVersion).toBe('2.112.3');
    expect(report.totals.balanced).toBe(true);
    const byName = Object.fromEntries(report.datasets.map((d) => [d.dataset, d]));
    expect(byName.messages).toMatchObject({ rowsRead: bed.messages.length, rowsWritten: bed.messages.length, rowsRejected: 0, jobType: 'MESSAGE_ANALYTICS_EXPORT', rejectsFile: null });
    expect(byName.users).toMatchObject({ rowsRead: bed.users.length, rowsWritten: bed.users.length, rowsRejected: 0, jobType: 'USER_ANALYTICS_EXPORT' });
    expect(byName.messages!.unknownColumns).toEqual([]);
    expect(byName.messages!.download.bytes).toBeGreaterThan(0);
  });

  it('lays out Hive partitions, manifests outside the data, _SUCCESS, and nothing else', () => {
    expect(listFiles(root)).toEqual([
      `_manifests/messages/dt=${DATE}/manifest.json`,
      `_manifests/users/dt=${DATE}/manifest.json`,
      `messages/dt=${DATE}/_SUCCESS`,
      `messages/dt=${DATE}/part-run-${format}-00000.${EXT[format]}`,
      `users/dt=${DATE}/_SUCCESS`,
      `users/dt=${DATE}/part-run-${format}-00000.${EXT[format]}`,
    ]);
  });

  it('writes a manifest with sizes, sha256, row counts, schema, job id and API version', () => {
    for (const d of report.datasets) {
      const manifest = readManifest(root, d.dataset, DATE);
      expect(manifest).toMatchObject({ dataset: d.dataset, date: DATE, runId: `run-${format}`, jobId: String(d.jobId), apiVersion: '2.112.3', format, rowCount: d.rowsWritten });
      expect(manifest.details).toMatchObject({ rowsRead: d.rowsRead, rowsRejected: 0, unknownColumns: [], missingColumns: [] });
      for (const [i, file] of manifest.files.entries()) {
        const path = join(root, d.dataset, `dt=${DATE}`, file.name);
        expect(manifest.entries[i]).toEqual({ url: file.url, mandatory: true, meta: { content_length: statSync(path).size, record_count: file.rows } });
        expect(file.sha256).toBe(createHash('sha256').update(readFileSync(path)).digest('hex'));
      }
    }
    expect(readManifest(root, 'users', DATE).schema.map((c) => `${c.name}:${c.type}`)).toEqual([
      'id:int64', 'name:string', 'display_name:string', 'type:string', 'is_guest:boolean', 'created_time:timestamp_us',
      'channels_count:int64', 'messages_count:int64', 'last_message_time:timestamp_us',
    ]);
  });

  it("holds the sandbox's users and messages, value for value", async () => {
    const users = await readDataset(root, 'users', DATE);
    const expectedUsers = expectedUserRows(bed.users);
    expect(users).toHaveLength(expectedUsers.size);
    for (const row of users) expect(pick(row, expectedUsers.get(row.id as bigint)!)).toEqual(expectedUsers.get(row.id as bigint));
    const alice = users.find((u) => u.name === 'alice')!;
    expect(alice.messages_count).toBe(BigInt(bed.messages.filter((m) => m.user?.name === 'alice').length));
    expect(typeof alice.last_message_time).toBe('bigint');

    const messages = await readDataset(root, 'messages', DATE);
    const expectedMessages = expectedMessageRows(bed.messages);
    expect(messages).toHaveLength(expectedMessages.size);
    for (const row of messages) expect(pick(row, expectedMessages.get(row.id as bigint)!)).toEqual(expectedMessages.get(row.id as bigint));
    expect(messages.find((m) => m.type === 'SYSTEM_TEXT')).toMatchObject({ user_id: null, username: null });
    expect(messages.find((m) => m.group_tag === 'tag,0')).toBeDefined();
  });
});

it('Parquet columns carry warehouse types: INT64, INT32, BOOLEAN, UTF8 and UTC TIMESTAMP(MILLIS) with --timestamp-unit ms', async () => {
  const root = bed.tempDir();
  await runExport({ datasets: ['messages'], to: root, format: 'parquet', date: DATE, runId: 'ms', timestampUnit: 'ms', job: { pollIntervalMs: 5 } }, { client: bed.client });
  const { rows, schema } = await readParquetFile(readFileSync(join(root, 'messages', `dt=${DATE}`, 'part-ms-00000.parquet')));
  const col = (name: string) => schema.find((s) => s.name === name)!;
  expect(col('id')).toMatchObject({ type: 'INT64', repetition_type: 'REQUIRED' });
  expect(col('body_length')).toMatchObject({ type: 'INT32' });
  expect(col('channel_name')).toMatchObject({ type: 'BYTE_ARRAY' });
  expect(col('created_time')).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } });
  const first = bed.messages[0]!;
  expect(rows.find((r) => r.id === BigInt(first.id))!.created_time).toBe(BigInt(Date.parse(first.createdTime!)) * 1000n);
});

it('Parquet: ids and times are written without a dictionary, other columns with one, every column with min/max for pruning', async () => {
  const root = bed.tempDir();
  await runExport({ datasets: ['messages', 'users'], to: root, format: 'parquet', date: DATE, runId: 'enc', job: { pollIntervalMs: 5 } }, { client: bed.client });
  const chunksOf = async (dataset: string) => (await readParquetFile(readFileSync(join(root, dataset, `dt=${DATE}`, 'part-enc-00000.parquet')))).chunks[0]!;
  const messages = await chunksOf('messages');
  for (const name of ['id', 'created_time', 'last_edited_time']) expect(messages[name], name).toMatchObject({ dictionaryPage: false, pageIndex: true });
  for (const name of ['type', 'channel_id', 'channel_name', 'user_id', 'username']) expect(messages[name]!.dictionaryPage, name).toBe(true);
  const ids = bed.messages.map((m) => BigInt(m.id));
  expect(messages.id).toMatchObject({ min: ids.reduce((a, b) => (b < a ? b : a)), max: ids.reduce((a, b) => (b > a ? b : a)) });
  const times = bed.messages.map((m) => Date.parse(m.createdTime!));
  expect(messages.created_time).toMatchObject({ min: new Date(Math.min(...times)), max: new Date(Math.max(...times)) });
  const users = await chunksOf('users');
  for (const name of ['id', 'created_time', 'last_message_time']) expect(users[name]!.dictionaryPage, name).toBe(false);
  expect(users.name!.dictionaryPage).toBe(true);
});
