/**
 * The columnar fast path (typed-batches.ts) against the exact path (typed-rows.ts) on the same exports:
 * the same Parquet rows (read back with hyparquet), the same rejects, the same counts. Parquet settings
 * whose batches would straddle row groups (rowGroupRows 10, batchRows 3) take the exact path; small
 * aligned ones (12 and 4) take the fast path across several batches and row groups.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runExport, type ExportReport } from '../../src/pipeline/export/index.js';
import { fastInteger, fastTimestampMicros, microsToMillis } from '../../src/pipeline/export/fast-cells.js';
import { FastRowTyper, OUTSIDE_WINDOW, WRITTEN } from '../../src/pipeline/export/fast-row.js';
import { parseInt64, parseTimestamp } from '../../src/pipeline/export/parse-cell.js';
import { readDataset } from './read-output.js';
import { startStoredExportBed, type ExportBed, type StoredExportBed } from './support.js';
import { rng } from '../helpers/rng.js';

const DATE = '2026-11-21';
const HEADER = 'id,type,channelId,channelName,userId,username,bodyLength,repliesCount,reactionsCount,groupTag,createdTime,lastEditedTime';

/** Every shape the fast readers take, refuse or leave to the exact parsers, and rows that must be rejected. */
const MESSAGES_CSV = [
  HEADER,
  '1,TEXT,10,general,50,ann,12,0,3,,2026-11-21T10:15:00Z,',
  '9007199254740993,TEXT,-42,"quoted, with comma",9223372036854775807,"multi\nline ""name""",-7,-9223372036854775808,00012,tag,2026-11-21T10:15:00.123Z,2026-11-21T10:15:00.123456789Z',
  '3,,10,,,,,,,,2026-11-21T00:00:00.000000Z,1969-12-31T23:59:59.9985Z',
  '4,TEXT,+7,"",-0, bob ,2147483647,-0,+5,x,2026-11-21T23:59:59.999999Z,2026-11-21T10:15:00+02:00',
  '5,TEXT,10,c,50,u,1,1,1,,2026-11-21 10:15:00z,2026-11-21',
  '6,TEXT,10,c,50,u,1,1,1,,2026-11-21T10:15:00.5+01:30, 2026-11-21T10:15:00Z ',
  '7,TEXT,10,c,50,u,2147483648,1,1,,2026-11-21T10:15:00Z,',
  '8,TEXT,x10,c,50,u,1,1,1,,2026-11-30T25:00:00Z,2026-02-30T00:00:00Z',
  ',TEXT,10,c,50,u,1,1,1,,2026-11-21T10:15:00Z,',
  '10,TEXT,10,c,50,u,1,1,1,,,',
  '11,TEXT,10,c,50,u,1,1,1,,2026-11-22T00:00:00Z,',
  '12,TEXT,10,c,50,u,1,1,1,,2026-11-20T23:59:59.999999Z,',
  '13,TEXT,10,c',
  '14,TEXT,10,c,50,u,1,1,1,,0000-11-21T10:15:00Z,',
  '15,TEXT,10,c,50,u,1,1,1,,2026-11-21T10:15:00.Z,2026-11-21T10:15:60Z',
  '16,TEXT,12345678901234567890,c,50,u,1,1,1,,2026-11-21T10:15:00.1234567890Z,',
  '17,TEXT,10,c,50,u,1,1,1,,2026-11-21T10:15:00Z,0001-01-01T00:00:00Z',
  ...Array.from({ length: 30 }, (_, i) => `${100 + i},TEXT,${-i},c${i % 3 ? i : ''},${i % 4 ? 9007199254740990 + i : ''},u,${i},${i},${i},,2026-11-21T${String(i % 24).padStart(2, '0')}:00:0${i % 10}.${i}Z,`),
].join('\r\n');

describe('the columnar fast path gives what the exact path gives', () => {
  let stored: StoredExportBed;
  let bed: ExportBed;

  beforeAll(async () => {
    stored = await startStoredExportBed();
    bed = stored.bed;
  });
  afterAll(() => stored.close());

  async function exportMessages(parquet: { rowGroupRows: number; batchRows: number }, timestampUnit: 'ms' | 'us') {
    const root = bed.tempDir();
    const report = await runExport({ datasets: ['messages'], to: root, format: 'parquet', date: DATE, runId: 'same', timestampUnit, parquet, job: { pollIntervalMs: 5 } }, { client: bed.client });
    return { report, rows: await readDataset(root, 'messages', DATE), rejects: rejectsOf(report) };
  }

  /** The served export both ways (exact: batches straddling row groups; fast: aligned ones); the fast one, checked equal. */
  async function fastEqualsExact(unit: 'ms' | 'us') {
    const exact = await exportMessages({ rowGroupRows: 10, batchRows: 3 }, unit);
    const fast = await exportMessages({ rowGroupRows: 12, batchRows: 4 }, unit);
    expect(fast.rows).toEqual(exact.rows);
    expect(fast.rejects).toEqual(exact.rejects);
    expect(countsOf(fast.report)).toEqual(countsOf(exact.report));
    return fast;
  }

  for (const unit of ['us', 'ms'] as const) {
    it(`the same Parquet rows, rejects and counts (timestamps in ${unit})`, async () => {
      stored.serve(MESSAGES_CSV);
      const fast = await fastEqualsExact(unit);
      // The cases are there: rows written, rejected (bad cells, no day, wrong field count) and outside the window.
      expect(countsOf(fast.report)).toEqual({ rowsRead: 47, rowsWritten: 37, rowsRejected: 8, rowsOutsideWindow: 2 });
      // Go's zero time, year 1, is an instant like any other (once refused: Date.UTC reads year 1 as 1901).
      expect(fast.rows.find((r) => r.id === 17n)).toMatchObject({ last_edited_time: -62_135_596_800_000_000n });
      expect(fast.rows[1]).toMatchObject({ id: 9007199254740993n, channel_id: -42n, user_id: 9223372036854775807n, username: 'multi\nline "name"', replies_count: -9223372036854775808n, reactions_count: 12n });
    });
  }

  it('the same where a row is given up after some of its values went into the batch, and for the rows after it', async () => {
    // Batches of 4 rows: each given-up row sits between written ones, its text, numbers, nulls and held
    // values (beyond 2^53, offset timestamps) taken back before the next row takes its slot.
    const T = (time: string, edited = '') => `${time},${edited}`;
    stored.serve(
      [
        HEADER,
        `1,TEXT,10,"ünïcødé, ""quoted""\nname",50,żółw 🐢,12,0,3,,${T('2026-11-21T00:00:00Z', '2024-02-29T23:59:59.999999Z')}`,
        `2,TEXT,10,日本語のチャンネル,9223372036854775807,名前,12,0,x,,${T('2026-11-21T10:00:00Z')}`,
        `3,,10,,,,,,,,${T('2026-11-21T23:59:59.999999Z', '1969-12-31T23:59:59.999999Z')}`,
        `4,TEXT,10,"a,b\r\nc",50,u,12,0,3,tag,${T('2026-11-22T00:00:00Z', '2024-02-29T00:00:00Z')}`,
        `5,TEXT,10,é,50,ü,12,0,3,tag,${T('2026-11-20T23:59:59.999999Z')}`,
        `9223372036854775806,TEXT,10,"x,y",9007199254740993,ñ,12,0,3,,${T('2026-11-22T01:00:00+02:00', '1600-02-29T12:00:00Z')}`,
        `7,TEXT,10,ascii,50,u,12,0,3,,${T('', '2000-02-29T00:00:00.5Z')}`,
        `8,TEXT,10,"",50,"",12,0,3,"",${T('2026-11-21T12:00:00.000001Z', '1900-03-01T00:00:00Z')}`,
        `9,TEXT,10,ß,9007199254740993,ø,12,0,3,,${T('2026-11-21T02:00:00+01:00')}`,
        `10,TEXT,10,"q""q",50,u,2147483648,0,3,,${T('2026-11-21T12:00:00Z')}`,
        `11,TEXT,10,last,50,u,-2147483648,0,3,,${T('2026-11-21T12:00:00Z', '1970-01-01T00:00:00Z')}`,
      ].join('\n'),
    );
    for (const unit of ['us', 'ms'] as const) {
      const fast = await fastEqualsExact(unit);
      expect(countsOf(fast.report)).toEqual({ rowsRead: 11, rowsWritten: 6, rowsRejected: 3, rowsOutsideWindow: 2 });
      expect(fast.rows.map((r) => [r.id, r.channel_name, r.username])).toEqual([
        [1n, 'ünïcødé, "quoted"\nname', 'żółw 🐢'],
        [3n, null, null],
        [9223372036854775806n, 'x,y', 'ñ'],
        [8n, null, null],
        [9n, 'ß', 'ø'],
        [11n, 'last', 'u'],
      ]);
    }
  });

  it('the same where plain lines are typed from their text: a BOM, CRLF ends, empty and non-ASCII cells, quoted rows, wrong field counts, no last line break', async () => {
    const typeLine = vi.spyOn(FastRowTyper.prototype, 'typeLine');
    const row = (id: string, rest: string, time = '2026-11-21T10:15:00Z', edited = '') => `${id},TEXT,10,${rest},12,0,3,tag,${time},${edited}`;
    const lines = [
      row('1', 'général,50,żółw 🐢'),
      row('2', '"a,b ""q""\r\nc",50,u'),
      '3,,10,,,,,,,,2026-11-21T10:17:00.5Z,',
      row('4', 'ü,50,u', '2026-11-21T10:18:00Z', ',extra'),
      '5,TEXT,10,c',
      '',
      row('6', 'c,50,u', '2026-11-21T10:19:00+01:00'),
      row('7', 'c,x50,u'),
      row('8', 'c,50,u', '2026-11-22T10:20:00Z'),
      row('', 'c,50,u'),
      row('10', '日本語,50,名前', '2026-11-21T10:21:00.123456Z', '2026-11-21T10:22:00Z'),
      row('11', 'c,,'),
      row('12', 'c,9007199254740993,u'),
      row('13', 'ß,50,ø', '2026-11-21T23:59:59.999999Z', '1969-12-31T23:59:59.5Z'),
    ];
    stored.serve(`\uFEFF${[HEADER, ...lines].join('\r\n')}`);
    for (const unit of ['us', 'ms'] as const) {
      typeLine.mockClear();
      const fast = await fastEqualsExact(unit);
      expect(countsOf(fast.report)).toEqual({ rowsRead: 13, rowsWritten: 8, rowsRejected: 4, rowsOutsideWindow: 1 });
      expect(fast.rejects.map((r) => [(r as { line: number }).line, (r as { kind: string }).kind])).toEqual([[6, 'unparseable'], [7, 'unparseable'], [10, 'untyped'], [12, 'untyped']]);
      expect(fast.rows.map((r) => [r.id, r.channel_name, r.username, r.user_id])).toEqual([
        [1n, 'général', 'żółw 🐢', 50n],
        [2n, 'a,b "q"\r\nc', 'u', 50n],
        [3n, null, null, null],
        [6n, 'c', 'u', 50n],
        [10n, '日本語', '名前', 50n],
        [11n, 'c', null, null],
        [12n, 'c', 'u', 9007199254740993n],
        [13n, 'ß', 'ø', 50n],
      ]);
      // Only the fast run types lines from their text: its plain lines but the first (a record, read for the
      // plan) and the last (no line break after it: the reader splits it) are written (3, 10, 11), outside
      // the window (8) or given back for the record path (6 more).
      const outcomes = typeLine.mock.results.map((r) => r.value as number);
      expect(outcomes).toHaveLength(10);
      expect(outcomes.filter((o) => o === WRITTEN)).toHaveLength(3);
      expect(outcomes.filter((o) => o === OUTSIDE_WINDOW)).toHaveLength(1);
    }
    typeLine.mockRestore();
  });

  it('the same for columns the schema does not know, whatever their names (read by a reader compiled from them)', async () => {
    const odd = ['"quo""te\\back"', '__proto__', 'constructor', 'a b', 'ünï'];
    stored.serve(
      [
        `${HEADER},${odd.join(',')}`,
        `1,TEXT,10,general,50,ann,12,0,3,,2026-11-21T10:15:00Z,,v1,p1,c1,s1,u1`,
        `2,TEXT,10,general,50,ann,12,0,3,,2026-11-21T11:15:00Z,,,p2,"c,2",,u2`,
        `3,TEXT,x,general,50,ann,12,0,3,,2026-11-21T12:15:00Z,,v3,p3,c3,s3,u3`,
      ].join('\n'),
    );
    const fast = await fastEqualsExact('us');
    expect(countsOf(fast.report)).toEqual({ rowsRead: 3, rowsWritten: 2, rowsRejected: 1, rowsOutsideWindow: 0 });
    expect(fast.report.datasets[0]!.unknownColumns.map((c) => c.source)).toEqual(['quo"te\\back', '__proto__', 'constructor', 'a b', 'ünï']);
    expect(Object.values(fast.rows[0]!).slice(-5)).toEqual(['v1', 'p1', 'c1', 's1', 'u1']);
    expect(Object.values(fast.rows[1]!).slice(-5)).toEqual([null, 'p2', 'c,2', null, 'u2']);
  });
});

/** The reject lines, less the job that names the export (each run starts its own). */
function rejectsOf(report: ExportReport): unknown[] {
  const path = report.datasets[0]!.rejectsFile;
  if (!path) return [];
  return readFileSync(path, 'utf8').trim().split('\n').map((l) => {
    const { file, ...rest } = JSON.parse(l) as { file: string };
    expect(file).toMatch(/^messages export \(job \d+\)$/);
    return rest;
  });
}

function countsOf(report: ExportReport) {
  const { rowsRead, rowsWritten, rowsRejected, rowsOutsideWindow } = report.datasets[0]!;
  return { rowsRead, rowsWritten, rowsRejected, rowsOutsideWindow };
}

describe('the fast readers agree with parse-cell.ts wherever they answer', () => {
  it('integers', () => {
    for (const text of ['0', '-0', '+0', '7', '-7', '+7', '00012', '999999999999999', '-999999999999999', '1000000000000000', '9007199254740993', '', '-', '+', '1e3', '1.0', ' 1', '1 ', '0x10', '١'])
      if (!Number.isNaN(fastInteger(text))) expect(BigInt(fastInteger(text))).toBe((parseInt64(text) as { value: bigint }).value);
    expect(fastInteger('9007199254740993')).toBeNaN();
    expect(fastInteger('1 ')).toBeNaN();
  });

  it('timestamps, to the microsecond, before 1970 and in milliseconds too', () => {
    const texts = [
      '2026-11-21T10:15:00Z', '2026-11-21T10:15:00.1Z', '2026-11-21T10:15:00.123456Z', '2026-11-21T10:15:00.123456789Z',
      '1969-12-31T23:59:59.9985Z', '1900-02-28T23:59:59.999999Z', '2000-02-29T00:00:00Z', '2100-02-29T00:00:00Z', '0100-01-01T00:00:00Z',
      '0099-12-31T00:00:00Z', '2026-11-21T24:00:00Z', '2026-11-21T10:60:00Z', '2026-11-21T10:15:60Z', '2026-13-01T00:00:00Z', '2026-04-31T00:00:00Z',
      '2026-11-21T10:15:00.Z', '2026-11-21T10:15:00.1234567890Z', '2026-11-21T10:15:00z', '2026-11-21 10:15:00Z', '2026-11-21T10:15:00+00:00', '9999-12-31T23:59:59Z',
    ];
    for (const text of texts) {
      const micros = fastTimestampMicros(text);
      if (Number.isNaN(micros)) continue;
      const exact = (parseTimestamp(text) as { value: bigint }).value;
      expect(BigInt(micros)).toBe(exact);
      const ms = exact / 1000n;
      expect(BigInt(microsToMillis(micros))).toBe(exact < 0n && ms * 1000n !== exact ? ms - 1n : ms);
    }
    // 20,000 random instants from year 100 to 9999, to the microsecond.
    const random = rng(3);
    const two = (n: number) => String(n).padStart(2, '0');
    for (let i = 0; i < 20_000; i++) {
      const year = 100 + Math.floor(random() * 9900);
      const month = 1 + Math.floor(random() * 12);
      const day = 1 + Math.floor(random() * new Date(Date.UTC(year, month, 0)).getUTCDate());
      const fraction = String(Math.floor(random() * 1_000_000)).padStart(6, '0');
      const text = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(Math.floor(random() * 24))}:${two(Math.floor(random() * 60))}:${two(Math.floor(random() * 60))}.${fraction}Z`;
      const micros = fastTimestampMicros(text);
      const exact = (parseTimestamp(text) as { value: bigint }).value;
      if (Number.isNaN(micros)) expect(Number.isSafeInteger(Number(exact))).toBe(false);
      else if (BigInt(micros) !== exact) expect({ text, micros }).toEqual({ text, micros: Number(exact) });
    }
    // Shapes left to the exact parser, whatever it makes of them; instants beyond a safe integer; year 0, refused.
    // Values sharing a date, with impossible dates and broken digits between them: each read on its own.
    for (const text of ['2026-02-28T01:00:00Z', '2026-02-29T01:00:00Z', '2026-02-28T01:00:00.5Z', '2026-02-2xT01:00:00Z', '2024-02-29T01:00:00Z', '2026-02-28T01:00:0/Z', '2026-02-28T25:00:00Z', '2026-02-28T01:00:00.12/Z', '2026-02-28T01:00:00.123456:Z']) {
      const exact = parseTimestamp(text);
      const micros = fastTimestampMicros(text);
      if (Number.isNaN(micros)) expect(exact.ok && Number.isSafeInteger(Number(exact.value)) && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(text)).toBe(false);
      else expect(BigInt(micros)).toBe((exact as { value: bigint }).value);
    }
    for (const text of ['2026-11-21T10:15:00z', '2026-11-21 10:15:00Z', '2026-11-21T10:15:00+00:00', '0099-12-31T00:00:00Z', '0000-01-01T00:00:00Z', '2026-04-31T00:00:00Z', '9999-12-31T23:59:59Z'])
      expect(fastTimestampMicros(text)).toBeNaN();
  });
});
