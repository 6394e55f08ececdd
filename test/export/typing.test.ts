/**
 * Typing rows against the declared schemas: exports in other shapes (NDJSON, gzip, a JSON array, new
 * columns, snake_case names, bad values) served from "storage" on another origin, and the pure parts.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planColumns, typeRecord } from '../../src/pipeline/export/column-plan.js';
import { parseInt32, parseInt64, parseTimestamp } from '../../src/pipeline/export/parse-cell.js';
import { parseExportPipelineFile, resolveExportDate, runExport, USERS_SCHEMA } from '../../src/pipeline/export/index.js';
import { exitCodeFor } from '../../src/shared/exit-codes.js';
import { failureSummary } from '../../src/cli/commands/export-termination-log.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { readDataset, readManifest } from './read-output.js';
import { startStoredExportBed, type StoredExportBed } from './support.js';

const DATE = '2026-11-21';

describe('exports in other shapes, from another origin', () => {
  let stored: StoredExportBed;
  let s3: S3Server;
  beforeAll(async () => {
    [stored, s3] = await Promise.all([startStoredExportBed(), startS3Server()]);
    await s3.createBucket('out');
  });
  afterAll(async () => {
    await stored.close();
    await s3.close();
  });

  const exportUsers = async (runId: string, extra: { maxRejects?: number } = {}) => {
    const root = stored.bed.tempDir();
    const run = runExport({ datasets: ['users'], to: root, format: 'parquet', date: DATE, runId, job: { pollIntervalMs: 5 }, ...extra }, { client: stored.bed.client });
    return { root, run };
  };

  it('gzip CSV with snake_case names, a new column and bad rows: bad rows to rejects, the new column kept as strings', async () => {
    const csv = [
      'id,name,display_name,type,is_guest,created_time,channels_count,messages_count,last_message_time,favourite_color',
      '1,ann,Ann,PERSON,false,2026-11-20T10:00:00.123456Z,2,5,2026-11-20T11:00:00+01:00,red',
      '2,bob,Bob,PERSON,maybe,2026-11-20T10:00:00Z,x,5,,blue',
      ',nobody,No One,PERSON,true,2026-11-20T10:00:00Z,0,0,,',
      '9223372036854775807,max,Max,BOT,TRUE,2026-02-30T00:00:00Z,0,0,,green',
      '4,dee,"Dee, ""D""",PERSON,1,2026-11-20,0,0,,',
      '5,eve,Eve,PERSON,false,2026-11-20T10:00:00Z,1,2,3',
    ].join('\n');
    stored.serve(gzipSync(csv), 'application/octet-stream');
    const { root, run } = await exportUsers('csv');
    const report = await run;
    const d = report.datasets[0]!;
    expect(report.status).toBe('completed-with-rejects');
    expect(d).toMatchObject({ rowsRead: 6, rowsWritten: 2, rowsRejected: 4, unknownColumns: [{ source: 'favourite_color', name: 'favourite_color' }], missingColumns: [] });
    expect(stored.storage.received.at(-1)!.headers.authorization).toBeUndefined();

    const rows = await readDataset(root, 'users', DATE);
    expect(rows).toEqual([
      { id: 1n, name: 'ann', display_name: 'Ann', type: 'PERSON', is_guest: false, created_time: BigInt(Date.UTC(2026, 10, 20, 10)) * 1000n + 123456n, channels_count: 2n, messages_count: 5n, last_message_time: BigInt(Date.UTC(2026, 10, 20, 10)) * 1000n, favourite_color: 'red' },
      { id: 4n, name: 'dee', display_name: 'Dee, "D"', type: 'PERSON', is_guest: true, created_time: BigInt(Date.UTC(2026, 10, 20)) * 1000n, channels_count: 0n, messages_count: 0n, last_message_time: null, favourite_color: null },
    ]);

    const rejects = readFileSync(d.rejectsFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; kind: string; reasons: Array<{ column?: string; expected: string }>; record: unknown });
    expect(d.rejectsFile).toBe(join(root, '_rejects', 'users', `dt=${DATE}`, 'rejects-csv.ndjson'));
    expect(rejects.map((r) => [r.line, r.kind, r.reasons.map((x) => x.column ?? '-')])).toEqual([
      [3, 'untyped', ['is_guest', 'channels_count']],
      [4, 'untyped', ['id']],
      [5, 'untyped', ['created_time']],
      [7, 'unparseable', ['-']],
    ]);
    expect(rejects[0]!.record).toMatchObject({ id: '2', is_guest: 'maybe' });
    expect(rejects[0]!.reasons[0]!.expected).toContain('boolean');
    expect(readManifest(root, 'users', DATE).details).toMatchObject({ rowsRead: 6, rowsRejected: 4, rejectsFile: d.rejectsFile });
  });

  it('a long value or row is clipped in its reject between characters, never through an emoji (no lone surrogate)', async () => {
    // 199 characters then an emoji: the 200-character clip of a reason's value falls inside the emoji; the
    // wrong-count row's 16,384-character clip of its raw text falls inside one too.
    const value = `${'x'.repeat(199)}🐢🐢`;
    const longRow = `3,${'y'.repeat(16_381)}🐢🐢,Z`;
    stored.serve(['id,name,display_name,type,is_guest,created_time,channels_count,messages_count,last_message_time', '1,a,A,PERSON,false,,1,1,', `2,b,B,PERSON,false,,${value},1,`, longRow].join('\n'));
    const report = await (await exportUsers('clip')).run;
    const text = readFileSync(report.datasets[0]!.rejectsFile!, 'utf8');
    expect(text).not.toMatch(/\\ud[89a-f]/i);
    const [untyped, unparseable] = text.trim().split('\n').map((l) => JSON.parse(l) as { reasons: Array<{ value?: string }>; record: unknown });
    expect(untyped!.reasons[0]!.value).toBe(`${'x'.repeat(199)}…`);
    expect(unparseable!.record).toBe(`3,${'y'.repeat(16_381)}…[${longRow.length - 16_383} more characters]`);
  });

  it('NDJSON with native numbers and booleans; a declared column the export lacks is written as nulls', async () => {
    const lines = [
      { id: 7, name: 'gus', displayName: 'Gus', isGuest: true, createdTime: '2026-11-20T10:00:00Z', channelsCount: 1, messagesCount: 9007199254740991 },
      { id: '8', name: 'hal', displayName: 'Hal', isGuest: 'false', createdTime: '2026-11-20T10:00:00Z', channelsCount: 0, messagesCount: 0, extra: { nested: true } },
    ];
    stored.serve(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), 'application/x-ndjson');
    const { root, run } = await exportUsers('nd');
    const d = (await run).datasets[0]!;
    expect(d).toMatchObject({ rowsRead: 2, rowsWritten: 1, rowsRejected: 1, missingColumns: ['type', 'last_message_time'] });
    expect(await readDataset(root, 'users', DATE)).toEqual([
      { id: 7n, name: 'gus', display_name: 'Gus', type: null, is_guest: true, created_time: BigInt(Date.UTC(2026, 10, 20, 10)) * 1000n, channels_count: 1n, messages_count: 9007199254740991n, last_message_time: null },
    ]);
    const reject = JSON.parse(readFileSync(d.rejectsFile!, 'utf8')) as { reasons: Array<{ field: string; expected: string }> };
    expect(reject.reasons).toEqual([expect.objectContaining({ field: 'extra', expected: expect.stringContaining('first record') })]);
  });

  it.each(['parquet', 'ndjson'] as const)('%s: numbers in a column the schema does not know keep their source text exactly (decimals, -0)', async (format) => {
    const scores = ['3.14159265358979323846', '1.50', '1e3', '-2.0E-3', '7', '-0', '0'];
    // Written by hand: JSON.stringify would round them first. The timestamp's fraction is no decimal.
    const lines = scores.map((score, i) => `{"id": ${i + 1}, "name": "n", "createdTime": "2026-11-20T10:00:00.5Z", "score" :${score}, "channelsCount": 2}`);
    stored.serve(Buffer.from(lines.join('\n')), 'application/x-ndjson');
    const root = stored.bed.tempDir();
    const report = await runExport({ datasets: ['users'], to: root, format, date: DATE, runId: 'dec', job: { pollIntervalMs: 5 } }, { client: stored.bed.client });
    expect(report.datasets[0]).toMatchObject({ rowsWritten: 7, rowsRejected: 0, unknownColumns: [{ source: 'score', name: 'score' }] });
    const rows = await readDataset(root, 'users', DATE);
    expect(rows.map((r) => r.score)).toEqual(scores);
    expect(rows.map((r) => r.channels_count)).toEqual(scores.map(() => 2n));
  });

  it.each(['parquet', 'ndjson'] as const)('%s: NDJSON that leaves nulls out: a declared column the first record lacks is still read from later records', async (format) => {
    const lines = [
      { id: 1, name: 'ann', createdTime: '2026-11-20T10:00:00Z' },
      { id: 2, name: 'bob', createdTime: '2026-11-20T10:00:00Z', lastMessageTime: '2026-11-20T11:00:00Z', isGuest: true },
      { id: 3, name: 'cy', createdTime: '2026-11-20T10:00:00Z', last_message_time: '2026-11-20T12:00:00Z' },
      { id: 4, name: 'di', createdTime: '2026-11-20T10:00:00Z', lastMessageTime: '2026-11-20T11:00:00Z', last_message_time: '2026-11-20T12:00:00Z' },
      { id: 5, name: 'ed', createdTime: '2026-11-20T10:00:00Z', lastMessageTime: 'soon', favouriteColor: 'red' },
    ];
    stored.serve(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n')), 'application/x-ndjson');
    const root = stored.bed.tempDir();
    const d = (await runExport({ datasets: ['users'], to: root, format, date: DATE, runId: `late-${format}`, job: { pollIntervalMs: 5 } }, { client: stored.bed.client })).datasets[0]!;
    expect(d).toMatchObject({ rowsRead: 5, rowsWritten: 3, rowsRejected: 2 });
    const hour = (h: number) => BigInt(Date.UTC(2026, 10, 20, h)) * 1000n;
    expect((await readDataset(root, 'users', DATE)).map((r) => [r.id, r.is_guest, r.last_message_time])).toEqual([[1n, null, null], [2n, true, hour(11)], [3n, null, hour(12)]]);
    const rejects = readFileSync(d.rejectsFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { reasons: Array<{ field: string; expected: string }> });
    expect(rejects.map((r) => r.reasons.map((x) => [x.field, x.expected]))).toEqual([
      [['last_message_time', expect.stringContaining('one field per column')]],
      [['lastMessageTime', expect.stringContaining('timestamp')], ['favouriteColor', expect.stringContaining('first record')]],
    ]);
  });

  it('NDJSON whose first lines cannot be read: they are rejected and counted, and the first readable record fixes the columns', async () => {
    const good = { id: 3, name: 'ida', displayName: 'Ida', isGuest: false, createdTime: '2026-11-20T10:00:00Z', channelsCount: 0, messagesCount: 0 };
    stored.serve(Buffer.from(['{broken', '[1,2]', JSON.stringify(good), 'also broken'].join('\n')), 'application/x-ndjson');
    const { root, run } = await exportUsers('nd-bad-start');
    const d = (await run).datasets[0]!;
    expect(d).toMatchObject({ rowsRead: 4, rowsWritten: 1, rowsRejected: 3 });
    expect((await readDataset(root, 'users', DATE)).map((r) => r.name)).toEqual(['ida']);
    const rejects = readFileSync(d.rejectsFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; kind: string });
    expect(rejects.map((r) => [r.line, r.kind])).toEqual([[1, 'unparseable'], [2, 'unparseable'], [4, 'unparseable']]);
  });

  it('a record naming a key twice is rejected, naming the key, as a CSV header naming a column twice is refused', async () => {
    stored.serve(['{"id":5,"name":"eve","createdTime":"2026-11-20T10:00:00Z"}', '{"id":6,"name":"fay","id":7,"createdTime":"2026-11-20T10:00:00Z"}'].join('\n'), 'application/x-ndjson');
    const { root, run } = await exportUsers('nd-duplicate-key');
    const d = (await run).datasets[0]!;
    expect(d).toMatchObject({ rowsRead: 2, rowsWritten: 1, rowsRejected: 1 });
    expect((await readDataset(root, 'users', DATE)).map((r) => r.id)).toEqual([5n]);
    const [reject] = readFileSync(d.rejectsFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; kind: string; reasons: Array<{ message: string }> });
    expect(reject).toMatchObject({ line: 2, kind: 'unparseable', reasons: [{ message: expect.stringContaining('the key "id" appears twice in the record') }] });
  });

  it('a JSON array export is read too', async () => {
    stored.serve(Buffer.from(JSON.stringify([{ id: 1, name: 'a', createdTime: '2026-01-01T00:00:00Z' }, { id: 2, name: 'b' }])), 'application/json');
    const { root, run } = await exportUsers('arr');
    expect((await run).datasets[0]).toMatchObject({ rowsRead: 2, rowsWritten: 2, rowsRejected: 0 });
    expect((await readDataset(root, 'users', DATE)).map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('past --max-rejects the run stops with REJECT_LIMIT_EXCEEDED and publishes nothing of that dataset', async () => {
    stored.serve(Buffer.from('id,name\n1,a\nx,b\ny,c\n2,d\n'), 'text/csv');
    const { root, run } = await exportUsers('limit', { maxRejects: 1 });
    await expect(run).rejects.toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED' });
    const { listFiles } = await import('./read-output.js');
    expect(listFiles(root).filter((f) => !f.startsWith('_rejects/'))).toEqual([]);
  });

  describe('an export that cannot be told from a broken one leaves the published date alone', () => {
    const GOOD = 'id,name\n1,a\n2,b\n';
    const publishedThenRerun = async (bytes: Buffer) => {
      const root = stored.bed.tempDir();
      const options = { datasets: ['users' as const], to: root, format: 'parquet' as const, date: DATE, job: { pollIntervalMs: 5 } };
      stored.serve(GOOD);
      await runExport({ ...options, runId: 'good' }, { client: stored.bed.client });
      const { listFiles } = await import('./read-output.js');
      const before = listFiles(root);
      stored.serve(bytes);
      const rerun = runExport({ ...options, runId: 'rerun' }, { client: stored.bed.client });
      return { root, rerun, before, listFiles };
    };

    it.each([
      ['0 bytes', Buffer.alloc(0)],
      ['an empty gzip', gzipSync('')],
      ['blank lines', Buffer.from('\n\r\n\n')],
    ])('%s: no header, no record: DATA_INVALID (exit 65)', async (_name, bytes) => {
      const { root, rerun, before, listFiles } = await publishedThenRerun(bytes);
      const error = await rerun.then(() => undefined, (e: unknown) => e);
      expect(error).toMatchObject({ code: 'DATA_INVALID', message: expect.stringContaining('no header row and no readable record') });
      expect(exitCodeFor(error)).toBe(65);
      expect(listFiles(root)).toEqual(before);
      expect(readManifest(root, 'users', DATE)).toMatchObject({ runId: 'good', rowCount: 2 });
    });

    it('every row rejected: without --max-rejects nothing is published over the date (REJECT_LIMIT_EXCEEDED, exit 65); with it, the empty day is published', async () => {
      const { root, rerun, before, listFiles } = await publishedThenRerun(Buffer.from('id,name\nx,a\ny,b\n'));
      const error = await rerun.then(() => undefined, (e: unknown) => e);
      expect(error).toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED', message: expect.stringContaining('all 2 rows of users') });
      expect(exitCodeFor(error)).toBe(65);
      expect(listFiles(root).filter((f) => !f.startsWith('_rejects/'))).toEqual(before.filter((f) => !f.startsWith('_rejects/')));
      expect(readManifest(root, 'users', DATE)).toMatchObject({ runId: 'good', rowCount: 2 });
      // The user's own threshold decides: an empty day is then published, with its rejects.
      stored.serve(Buffer.from('id,name\nx,a\ny,b\n'));
      const allowed = await runExport({ datasets: ['users'], to: root, format: 'parquet', date: DATE, runId: 'allowed', maxRejects: 10, job: { pollIntervalMs: 5 } }, { client: stored.bed.client });
      expect(allowed.datasets[0]).toMatchObject({ rowsRead: 2, rowsWritten: 0, rowsRejected: 2 });
      expect(readManifest(root, 'users', DATE)).toMatchObject({ runId: 'allowed', rowCount: 0 });
    });

    it('a header with none of the schema\'s columns: the required column is missing (exit 65)', async () => {
      const { root, rerun, before, listFiles } = await publishedThenRerun(Buffer.from('foo,bar\n'));
      await expect(rerun).rejects.toMatchObject({ code: 'DATA_INVALID', message: expect.stringContaining('required column "id"') });
      expect(listFiles(root)).toEqual(before);
    });

    it.each([['[]'], ['[ ]\n']])('a JSON array read to its closing bracket with no element (%j) is an empty day: published as empty', async (text) => {
      const { root, rerun } = await publishedThenRerun(Buffer.from(text));
      expect((await rerun).datasets[0]).toMatchObject({ rowsRead: 0, rowsWritten: 0, rowsRejected: 0 });
      expect(readManifest(root, 'users', DATE)).toMatchObject({ runId: 'rerun', rowCount: 0 });
      expect(await readDataset(root, 'users', DATE)).toEqual([]);
    });

    it('a CSV with a header and no rows is an empty day: published as empty', async () => {
      const { root, rerun } = await publishedThenRerun(Buffer.from('id,name,display_name,newThing\n'));
      const d = (await rerun).datasets[0]!;
      expect(d).toMatchObject({ rowsRead: 0, rowsWritten: 0, rowsRejected: 0, unknownColumns: [{ source: 'newThing', name: 'new_thing' }] });
      expect(d.missingColumns).toContain('created_time');
      expect(readManifest(root, 'users', DATE)).toMatchObject({ runId: 'rerun', rowCount: 0 });
      expect(await readDataset(root, 'users', DATE)).toEqual([]);
    });
  });

  it.each(['local', 's3'] as const)('%s: re-runs replace the date\'s rejects; a failed re-run leaves them; a clean one leaves none', async (where) => {
    const rejectsDir = join(stored.bed.tempDir(), 'rejects');
    const to = where === 's3' ? 's3://out/chat' : stored.bed.tempDir();
    const s3Options = where === 's3' ? { s3: { endpoint: s3.endpoint, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } } : {};
    const run = (runId: string, csv: string, maxRejects?: number) => {
      stored.serve(csv);
      return runExport({ datasets: ['users'], to, format: 'ndjson', date: DATE, runId, rejectsDir, job: { pollIntervalMs: 5 }, ...s3Options, ...(maxRejects === undefined ? {} : { maxRejects }) }, { client: stored.bed.client });
    };
    const folder = join(rejectsDir, 'users', `dt=${DATE}`);
    const published = () => readdirSync(folder, { recursive: true }).map(String).sort();
    const rejectedIds = (file: string) => readFileSync(join(folder, file), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { record: { id: string } }).record.id);

    await run('one', 'id,name\n1,a\nx,b\n');
    const second = await run('two', 'id,name\n1,a\ny,b\nz,c\n');
    expect(second.datasets[0]!.rejectsFile).toBe(join(folder, 'rejects-two.ndjson'));
    expect(published()).toEqual(['rejects-two.ndjson']);
    expect(rejectedIds('rejects-two.ndjson')).toEqual(['y', 'z']);

    // The same run id again (a retry) stops past --max-rejects: the published rejects stay with the published output.
    const failed = run('two', 'id,name\nq,a\n', 0);
    const staged = join(rejectsDir, '_staging', 'users', `dt=${DATE}`, 'rejects-two.ndjson');
    await expect(failed).rejects.toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED', details: { rejectsFile: staged } });
    expect(published()).toEqual(['rejects-two.ndjson']);
    expect(rejectedIds('rejects-two.ndjson')).toEqual(['y', 'z']);
    expect(readFileSync(staged, 'utf8')).toContain('"q"');

    const clean = await run('three', 'id,name\n1,a\n');
    expect(clean.datasets[0]!.rejectsFile).toBeNull();
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(dirname(staged))).toBe(false);
  });

  it('s3: the rejects go into the store beside the output (a pod gone after the run loses none), each root its own; re-runs replace them', async () => {
    const tmp = stored.bed.tempDir();
    const savedTmp = process.env.TMPDIR;
    // The pod's temp folder, which goes with the pod.
    process.env.TMPDIR = tmp;
    const client = s3.client();
    const keysUnder = async (prefix: string) => ((await client.send(new ListObjectsV2Command({ Bucket: 'out', Prefix: prefix }))).Contents ?? []).map((c) => c.Key!).sort();
    const readS3 = async (url: string) => (await (await client.send(new GetObjectCommand({ Bucket: 'out', Key: url.replace(/^s3:\/\/out\//, '') }))).Body!.transformToString());
    try {
      const s3Options = { s3: { endpoint: s3.endpoint, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } };
      const run = (to: string, runId: string, csv: string) => {
        stored.serve(csv);
        return runExport({ datasets: ['users'], to, format: 'ndjson', date: DATE, runId, job: { pollIntervalMs: 5 }, ...s3Options }, { client: stored.bed.client });
      };
      const tenantA = await run('s3://out/tenant-a', 'a1', 'id,name\n1,a\nx,b\n');
      const tenantB = await run('s3://out/tenant-b/', 'b1', 'id,name\n1,a\ny,b\n');
      rmSync(tmp, { recursive: true, force: true });
      const [fileA, fileB] = [tenantA.datasets[0]!.rejectsFile!, tenantB.datasets[0]!.rejectsFile!];
      expect(fileA).toMatch(new RegExp(`^s3://out/tenant-a/_rejects/users/dt=${DATE}/rejects-a1-[0-9a-f]{8}\\.ndjson$`));
      expect(fileB).toMatch(new RegExp(`^s3://out/tenant-b/_rejects/users/dt=${DATE}/rejects-b1-[0-9a-f]{8}\\.ndjson$`));
      const manifestA = JSON.parse(await readS3(`s3://out/tenant-a/_manifests/users/dt=${DATE}/manifest.json`)) as { details: { rejectsFile: string; rowsRejected: number } };
      expect(manifestA.details).toMatchObject({ rejectsFile: fileA, rowsRejected: 1 });
      expect(await readS3(fileA)).toContain('"x"');
      expect(await readS3(fileB)).toContain('"y"');
      // The same root (a trailing slash or not) replaces its own; a clean run leaves none.
      const again = await run('s3://out/tenant-a/', 'a2', 'id,name\n1,a\nz,b\n');
      expect(await keysUnder('tenant-a/_rejects/')).toEqual([again.datasets[0]!.rejectsFile!.replace('s3://out/', '')]);
      expect(await keysUnder('tenant-b/_rejects/')).toEqual([fileB.replace('s3://out/', '')]);
      const clean = await run('s3://out/tenant-a', 'a3', 'id,name\n1,a\n');
      expect(clean.datasets[0]!.rejectsFile).toBeNull();
      expect(await keysUnder('tenant-a/_rejects/')).toEqual([]);
    } finally {
      client.destroy();
      if (savedTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmp;
    }
  });

  it('s3: a run that fails on its rejects keeps them aside in the store (the pod goes), and names them; the next run of the date clears them', async () => {
    const client = s3.client();
    const keysUnder = async (prefix: string) => ((await client.send(new ListObjectsV2Command({ Bucket: 'out', Prefix: prefix }))).Contents ?? []).map((c) => c.Key!).sort();
    const s3Options = { s3: { endpoint: s3.endpoint, region: s3.region, credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } } };
    const run = (runId: string, csv: string, maxRejects?: number) => {
      stored.serve(csv);
      return runExport({ datasets: ['users'], to: 's3://out/aside', format: 'ndjson', date: DATE, runId, job: { pollIntervalMs: 5 }, ...s3Options, ...(maxRejects === undefined ? {} : { maxRejects }) }, { client: stored.bed.client });
    };
    try {
      const failed: unknown = await run('f1', 'id,name\n1,a\nq,b\n', 0).catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: 'REJECT_LIMIT_EXCEEDED', details: { rejectsInStore: [expect.stringMatching(new RegExp(`^s3://out/aside/_rejects/_staging/users/dt=${DATE}/rejects-f1-[0-9a-f]{8}\\.ndjson$`))] } });
      const [aside] = (failed as { details: { rejectsInStore: string[] } }).details.rejectsInStore;
      const text = await (await client.send(new GetObjectCommand({ Bucket: 'out', Key: aside!.replace('s3://out/', '') }))).Body!.transformToString();
      expect(text).toContain('"q"');
      expect(failureSummary(failed, {}, [])).toMatchObject({ rejectsInStore: [aside] });
      // Nothing was published, and nothing is in the published rejects folder.
      expect(await keysUnder('aside/_rejects/users/')).toEqual([]);
      await run('f2', 'id,name\n1,a\n');
      expect(await keysUnder('aside/_rejects/')).toEqual([]);
    } finally {
      client.destroy();
    }
  });

  it('an export without a required column stops at once with DATA_INVALID naming it', async () => {
    stored.serve(Buffer.from('name,displayName\na,A\n'), 'text/csv');
    const { run } = await exportUsers('noid');
    await expect(run).rejects.toMatchObject({ code: 'DATA_INVALID', message: expect.stringContaining('required column "id"') });
  });
});

describe('pure parts', () => {
  it('reads int64 to its limits, and int32 within its range', () => {
    expect(parseInt64('9223372036854775807')).toEqual({ ok: true, value: 9223372036854775807n });
    expect(parseInt64('9223372036854775808').ok).toBe(false);
    expect(parseInt64('-12')).toEqual({ ok: true, value: -12n });
    expect(parseInt64('1.5').ok).toBe(false);
    expect(parseInt64(2 ** 53).ok).toBe(false);
    expect(parseInt32('2147483647')).toEqual({ ok: true, value: 2147483647 });
    expect(parseInt32('2147483648').ok).toBe(false);
  });

  it('reads an integer padded with leading zeros past 19 digits as the number it names, within the range', () => {
    expect(parseInt64('00000000000000000000001')).toEqual({ ok: true, value: 1n });
    expect(parseInt64(' -0000000000000000000009223372036854775808 ')).toEqual({ ok: true, value: -9223372036854775808n });
    expect(parseInt64('+0000000000000000000000')).toEqual({ ok: true, value: 0n });
    expect(parseInt64('00000000000000000000009223372036854775808').ok).toBe(false);
    expect(parseInt64('12345678901234567890').ok).toBe(false);
    expect(parseInt64('000x1').ok).toBe(false);
    expect(parseInt32('0000000000000000000000012')).toEqual({ ok: true, value: 12 });
  });

  it('reads ISO timestamps to UTC microseconds: zones, fractions, nanoseconds dropped, impossible dates refused', () => {
    const base = BigInt(Date.UTC(2026, 10, 21, 10, 15)) * 1000n;
    expect(parseTimestamp('2026-11-21T10:15:00Z')).toEqual({ ok: true, value: base });
    expect(parseTimestamp('2026-11-21T12:15:00+02:00')).toEqual({ ok: true, value: base });
    expect(parseTimestamp('2026-11-21T05:15:00-0500')).toEqual({ ok: true, value: base });
    expect(parseTimestamp('2026-11-21T10:15:00.123456789Z')).toEqual({ ok: true, value: base + 123456n });
    expect(parseTimestamp('2026-11-21 10:15:00.5')).toEqual({ ok: true, value: base + 500000n });
    expect(parseTimestamp('1969-12-31T23:59:59.999Z')).toEqual({ ok: true, value: -1000n });
    for (const bad of ['2026-02-29T00:00:00Z', '2026-11-21T24:00:00Z', 'yesterday', '1700000000']) expect(parseTimestamp(bad).ok).toBe(false);
  });

  it('reads timestamps of years 1 to 99 as those years (Go\'s zero time 0001-01-01 among them), not as 1901–1999; year 0 is refused', () => {
    expect(parseTimestamp('0001-01-01T00:00:00Z')).toEqual({ ok: true, value: -62_135_596_800_000_000n });
    expect(parseTimestamp('0099-12-31T23:59:59.5+01:00')).toEqual({ ok: true, value: BigInt(Date.parse('0099-12-31T22:59:59Z')) * 1000n + 500_000n });
    expect(parseTimestamp('0004-02-29T00:00:00Z')).toEqual({ ok: true, value: BigInt(Date.parse('0004-02-29T00:00:00Z')) * 1000n });
    for (const bad of ['0000-01-01T00:00:00Z', '0001-02-29T00:00:00Z', '0050-13-01T00:00:00Z']) expect(parseTimestamp(bad).ok, bad).toBe(false);
  });

  it('names why an ISO 8601 leap second, 24:00 or impossible day is refused, rather than calling it not ISO 8601', () => {
    for (const text of ['2016-12-31T23:59:60Z', '2026-11-21T24:00:00Z', '2026-02-30T10:00:00Z', '0000-01-01T00:00:00Z'])
      expect(parseTimestamp(text), text).toEqual({ ok: false, expected: expect.stringMatching(/years 0001–9999.*no leap second 23:59:60, no 24:00/) });
    expect(parseTimestamp('21/11/2026')).toEqual({ ok: false, expected: 'an ISO 8601 timestamp such as 2026-11-21T10:15:00Z' });
  });

  it('matches snake_case or camelCase headers to the declared columns and names new ones uniquely', () => {
    const plan = planColumns(USERS_SCHEMA, ['ID', 'display_name', 'Is-Guest', 'newThing', 'new_thing', 'name'], 'ms', 'test');
    expect(plan.schema.columns.map((c) => `${c.name}:${c.type}`)).toEqual([
      'id:int64', 'name:string', 'display_name:string', 'type:string', 'is_guest:boolean', 'created_time:timestamp_ms',
      'channels_count:int64', 'messages_count:int64', 'last_message_time:timestamp_ms', 'new_thing:string', 'new_thing_2:string',
    ]);
    expect(plan.missingColumns).toEqual(['type', 'created_time', 'channels_count', 'messages_count', 'last_message_time']);
    expect(typeRecord(plan, { ID: '3', display_name: 'C', 'Is-Guest': 'true', newThing: 1, new_thing: '', name: 'c' })).toEqual({
      ok: true,
      row: { id: 3n, name: 'c', display_name: 'C', type: null, is_guest: true, created_time: null, channels_count: null, messages_count: null, last_message_time: null, new_thing: '1', new_thing_2: null },
    });
  });

  it('never names a column dt, the partition column readers add to every row', () => {
    const plan = planColumns(USERS_SCHEMA, ['id', 'dt', 'DT'], 'us', 'test');
    expect(plan.unknownColumns).toEqual([{ source: 'dt', name: 'dt_2' }, { source: 'DT', name: 'dt_3' }]);
    expect(plan.schema.columns.map((c) => c.name)).not.toContain('dt');
  });

  it('resolves the logical date from a scheduler in UTC', () => {
    const now = Date.UTC(2026, 10, 22, 0, 30);
    // Without a date, the previous full day: the current one is not over.
    expect(resolveExportDate(undefined, now)).toBe('2026-11-21');
    expect(resolveExportDate('today', now)).toBe('2026-11-22');
    expect(resolveExportDate('yesterday', now)).toBe('2026-11-21');
    expect(resolveExportDate('2026-11-20', now)).toBe('2026-11-20');
    expect(resolveExportDate('2026-11-20T23:30:00-02:00', now)).toBe('2026-11-21');
    // Before 1970 the instant's day is floored, not truncated toward 1970.
    expect(resolveExportDate('1969-12-31T23:59:59.9995Z', now)).toBe('1969-12-31');
    expect(resolveExportDate('1969-12-31T23:59:59.999999Z', now)).toBe('1969-12-31');
    expect(() => resolveExportDate('2026-13-01', now)).toThrow(/expected YYYY-MM-DD/);
  });

  it('pipelines/nightly-analytics.yaml resolves, with ${VAR} defaults and overrides', () => {
    const path = join(import.meta.dirname, '../../pipelines/nightly-analytics.yaml');
    const text = readFileSync(path, 'utf8');
    expect(parseExportPipelineFile(text, path, {})).toMatchObject({ kind: 'export', datasets: 'all', to: 's3://analytics-bucket/chat', format: 'parquet', date: 'yesterday', rejects: { max: 1000 } });
    const overridden = parseExportPipelineFile(text, path, { CHATPORT_EXPORT_TO: '/data/out', CHATPORT_S3_ENDPOINT: 'http://127.0.0.1:9000' });
    expect(overridden).toMatchObject({ to: '/data/out', s3: { endpoint: 'http://127.0.0.1:9000' } });
    expect(() => parseExportPipelineFile('kind: export\nto: /x\nformat: xlsx\n', 'p.yaml', {})).toThrow(/p\.yaml:3: format: expected one of "parquet", "ndjson", "csv", found text "xlsx"/);
  });
});
