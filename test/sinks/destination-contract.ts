/**
 * One behaviour suite for every destination backend (the unstorage `testDriver` idea): the same exports,
 * reruns and failures against a local directory and against a real S3-compatible server.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { writeExport, type Destination, type ExportManifest, type OutputFormat, type Row, type WriteExportOptions } from '../../src/sinks/index.js';
import { decodeFile, idsOf } from './read-output.js';
import { asyncRows, sampleRow, sampleSchema } from './sample-rows.js';

export interface DestinationUnderTest {
  destination: Destination;
  /** Every stored file, as paths relative to the destination root, sorted. */
  listFiles(): Promise<string[]>;
  readFile(relative: string): Promise<Buffer>;
}

const ROWS = 3000;
const fixedNow = () => {
  let t = Date.UTC(2026, 10, 22, 2, 0, 0);
  return () => (t += 1000);
};

export function options(target: DestinationUnderTest, format: OutputFormat, extra: Partial<WriteExportOptions> = {}): WriteExportOptions {
  return {
    dataset: 'messages',
    date: '2026-11-21',
    runId: '01JDRUNAAAAAAAAAAAAAAAAAAA',
    format,
    schema: sampleSchema,
    destination: target.destination,
    // Small files and row groups so a few thousand rows make several files.
    maxFileBytes: format === 'parquet' ? 1 : 16 * 1024,
    parquet: { rowGroupRows: 1000, batchRows: 250 },
    jobId: 'job-42',
    apiVersion: '2.117.0',
    now: fixedNow(),
    ...extra,
  };
}

function* rowsFrom(start: number, count: number): Generator<Row> {
  for (let i = start; i < start + count; i++) yield sampleRow(i);
}

async function* failingAfter(count: number): AsyncGenerator<Row> {
  yield* rowsFrom(0, count);
  throw new Error('the export download broke');
}

async function readManifest(target: DestinationUnderTest, date = '2026-11-21'): Promise<ExportManifest> {
  return JSON.parse((await target.readFile(`_manifests/messages/dt=${date}/manifest.json`)).toString()) as ExportManifest;
}

async function idsIn(target: DestinationUnderTest, format: OutputFormat, files: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const file of files) ids.push(...idsOf(format, await decodeFile(format, await target.readFile(file))));
  return ids;
}

const expectedIds = (count: number, start = 0) => Array.from(rowsFrom(start, count), (r) => String(r.id));

/** `attemptTag`: the pattern of the part of a data file name between the run id and the sequence. */
export function describeDestinationContract(name: string, setup: () => Promise<DestinationUnderTest>, attemptTag = ''): void {
  describe(`${name} destination`, () => {
    describe.each(['parquet', 'ndjson', 'csv'] as const)('%s', (format) => {
      it('writes rolled files in the Hive layout with a manifest whose sizes and sha256 match, and _SUCCESS', async () => {
        const target = await setup();
        const result = await writeExport(asyncRows(rowsFrom(0, ROWS)), options(target, format));
        const ext = { parquet: 'parquet', ndjson: 'ndjson.gz', csv: 'csv.gz' }[format];
        const files = await target.listFiles();
        const dataFiles = files.filter((f) => f.startsWith('messages/dt=2026-11-21/part-'));
        expect(dataFiles.length).toBeGreaterThan(1);
        expect(dataFiles[0]).toMatch(new RegExp(`^messages/dt=2026-11-21/part-01JDRUNAAAAAAAAAAAAAAAAAAA-${attemptTag}00000\\.${ext.replace('.', '\\.')}$`));
        expect(files).toEqual([...dataFiles, 'messages/dt=2026-11-21/_SUCCESS', '_manifests/messages/dt=2026-11-21/manifest.json'].sort());

        const manifest = await readManifest(target);
        expect(manifest).toEqual(result.manifest);
        expect(manifest).toMatchObject({
          dataset: 'messages', date: '2026-11-21', runId: '01JDRUNAAAAAAAAAAAAAAAAAAA', jobId: 'job-42', apiVersion: '2.117.0',
          format, rowCount: ROWS, startedAt: '2026-11-22T02:00:01.000Z', finishedAt: '2026-11-22T02:00:02.000Z',
          compression: format === 'parquet' ? 'zstd' : 'gzip',
        });
        expect(manifest.schema).toEqual(sampleSchema.columns.map((c) => ({ nullable: true, ...c })));
        expect(manifest.files.map((f) => `messages/dt=2026-11-21/${f.name}`)).toEqual(dataFiles);
        let rows = 0;
        let bytes = 0;
        for (const [i, file] of manifest.files.entries()) {
          const stored = await target.readFile(`messages/dt=2026-11-21/${file.name}`);
          expect(file.bytes).toBe(stored.length);
          expect(file.sha256).toBe(createHash('sha256').update(stored).digest('hex'));
          expect(file.rows).toBe((await decodeFile(format, stored)).length);
          expect(file.url.endsWith(`/messages/dt=2026-11-21/${file.name}`)).toBe(true);
          expect(manifest.entries[i]).toEqual({ url: file.url, mandatory: true, meta: { content_length: stored.length, record_count: file.rows } });
          rows += file.rows;
          bytes += file.bytes;
        }
        expect([rows, bytes]).toEqual([ROWS, manifest.totalBytes]);
        expect(await idsIn(target, format, dataFiles)).toEqual(expectedIds(ROWS));
        expect((await target.readFile('messages/dt=2026-11-21/_SUCCESS')).length).toBe(0);
      });
    });

    it('writes one file holding the schema when there are no rows', async () => {
      const target = await setup();
      const { manifest } = await writeExport(asyncRows([]), options(target, 'parquet'));
      expect(manifest.files.map((f) => f.rows)).toEqual([0]);
      expect(await target.listFiles()).toContain('messages/dt=2026-11-21/_SUCCESS');
    });

    it('leaves exactly one copy when the same date is written again, and other dates alone', async () => {
      const target = await setup();
      const t = (extra: Partial<WriteExportOptions>) => options(target, 'ndjson', extra);
      await writeExport(asyncRows(rowsFrom(0, ROWS)), t({}));
      await writeExport(asyncRows(rowsFrom(0, 10)), t({ date: '2026-11-20' }));
      // A new run of the same date, with other rows and fewer files.
      const second = await writeExport(asyncRows(rowsFrom(5000, 700)), t({ runId: '01JDRUNBBBBBBBBBBBBBBBBBBB' }));
      const files = await target.listFiles();
      const date21 = files.filter((f) => f.startsWith('messages/dt=2026-11-21/part-'));
      expect(date21).toEqual(second.manifest.files.map((f) => `messages/dt=2026-11-21/${f.name}`));
      expect(await idsIn(target, 'ndjson', date21)).toEqual(expectedIds(700, 5000));
      expect(await readManifest(target)).toEqual(second.manifest);
      expect(files.filter((f) => f.startsWith('messages/dt=2026-11-20/'))).toHaveLength(2);
      // The same run id again (a retried shard) overwrites its own names and drops the extra ones.
      const third = await writeExport(asyncRows(rowsFrom(0, 5)), t({ runId: '01JDRUNBBBBBBBBBBBBBBBBBBB' }));
      expect((await target.listFiles()).filter((f) => f.startsWith('messages/dt=2026-11-21/'))).toEqual([
        'messages/dt=2026-11-21/_SUCCESS',
        `messages/dt=2026-11-21/${third.manifest.files[0]!.name}`,
      ]);
      expect(await idsIn(target, 'ndjson', [`messages/dt=2026-11-21/${third.manifest.files[0]!.name}`])).toEqual(expectedIds(5));
    });

    it('publishes nothing when the rows fail midway, and keeps the previous output published', async () => {
      const target = await setup();
      await expect(writeExport(failingAfter(2500), options(target, 'csv'))).rejects.toThrow('the export download broke');
      expect((await target.listFiles()).filter((f) => !f.startsWith('_staging/'))).toEqual([]);

      const first = await writeExport(asyncRows(rowsFrom(0, 100)), options(target, 'csv'));
      const before = await target.listFiles();
      const failed = writeExport(failingAfter(2500), options(target, 'csv', { runId: '01JDRUNCCCCCCCCCCCCCCCCCCC' }));
      await expect(failed).rejects.toThrow('the export download broke');
      expect((await target.listFiles()).filter((f) => !f.startsWith('_staging/'))).toEqual(before);
      expect(await readManifest(target)).toEqual(first.manifest);
      expect(await idsIn(target, 'csv', first.manifest.files.map((f) => `messages/dt=2026-11-21/${f.name}`))).toEqual(expectedIds(100));
    });

    it('a retry with the same run id that fails after uploading files leaves the published output and its manifest intact', async () => {
      const target = await setup();
      const first = await writeExport(asyncRows(rowsFrom(0, ROWS)), options(target, 'csv'));
      const before = await target.listFiles();
      // Same run id (a scheduler's retry), other rows: several files are written before the rows break.
      const retry = async function* () {
        yield* rowsFrom(10_000, 2500);
        throw new Error('the export download broke');
      };
      await expect(writeExport(retry(), options(target, 'csv'))).rejects.toThrow('the export download broke');
      expect((await target.listFiles()).filter((f) => !f.startsWith('_staging/'))).toEqual(before);
      const manifest = await readManifest(target);
      expect(manifest).toEqual(first.manifest);
      for (const file of manifest.files) {
        const stored = await target.readFile(`messages/dt=2026-11-21/${file.name}`);
        expect(createHash('sha256').update(stored).digest('hex')).toBe(file.sha256);
        expect((await decodeFile('csv', stored)).length).toBe(file.rows);
      }
      expect(await idsIn(target, 'csv', manifest.files.map((f) => `messages/dt=2026-11-21/${f.name}`))).toEqual(expectedIds(ROWS));
    });

    it('refuses a row that does not fit the schema and publishes nothing', async () => {
      const target = await setup();
      const rows = [sampleRow(0), { ...sampleRow(1), isGuest: 'yes' }];
      await expect(writeExport(asyncRows(rows), options(target, 'parquet'))).rejects.toMatchObject({ code: 'SINK_ROW_INVALID', details: { row: 2, column: 'isGuest' } });
      expect((await target.listFiles()).filter((f) => !f.startsWith('_staging/'))).toEqual([]);
    });
  });
}
