import { parse } from 'csv-parse/sync';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createFileEncoder, type OutputFormat, type Row, type TableSchema } from '../../src/sinks/index.js';
import { readParquet } from './parquet-reader.js';
import { asyncRows, expectedRow, sampleRows, sampleSchema } from './sample-rows.js';

async function encode(format: OutputFormat, rows: Row[], options = {}, schema: TableSchema = sampleSchema): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of (await createFileEncoder(format, schema, options)).encode(asyncRows(rows), 1)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('Parquet encoder (read back with hyparquet, not the writer)', () => {
  it('keeps rows, nulls, int64 beyond 2^53 and µs timestamps exactly', async () => {
    const { rows } = await readParquet(await encode('parquet', sampleRows(50)));
    expect(rows).toHaveLength(50);
    rows.forEach((row, i) => expect(row).toEqual(expectedRow(i)));
  });

  it('keeps every text exactly: a leading U+FEFF, NUL, CR LF, surrogate pairs, texts past the short-copy length', async () => {
    const schema: TableSchema = { columns: [{ name: 'text', type: 'string' }] };
    const texts = ['\uFEFF', '\uFEFFbom', 'a\uFEFF', 'nul\u0000byte', 'cr\r\nlf', '🎉x🎉', 'é'.repeat(64), 'x'.repeat(65), '日本'.repeat(40_000), '\u2028\u2029'];
    const { rows } = await readParquet(await encode('parquet', texts.map((text) => ({ text })), {}, schema));
    expect(rows.map((r) => r.text)).toEqual(texts);
  });

  it('declares the physical and logical types, UTC-adjusted ms/µs timestamps and nullability', async () => {
    const { schema } = await readParquet(await encode('parquet', sampleRows(3)));
    const byName = Object.fromEntries(schema.slice(1).map((e) => [e.name, e]));
    expect(byName.id).toMatchObject({ type: 'INT64', repetition_type: 'REQUIRED' });
    expect(byName.channelId).toMatchObject({ type: 'INT64', repetition_type: 'OPTIONAL' });
    expect(byName.bodyLength).toMatchObject({ type: 'INT32' });
    expect(byName.isGuest).toMatchObject({ type: 'BOOLEAN' });
    expect(byName.name).toMatchObject({ type: 'BYTE_ARRAY', logical_type: { type: 'STRING' } });
    expect(byName.createdTime).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } });
    expect(byName.editedTime).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } });
  });

  it('cuts row groups at the configured row count and writes an empty file with its schema', async () => {
    const { rowGroups } = await readParquet(await encode('parquet', sampleRows(25), { parquet: { rowGroupRows: 10, batchRows: 4 } }));
    expect(rowGroups).toEqual([10, 10, 5]);
    const empty = await readParquet(await encode('parquet', []));
    expect(empty.rows).toEqual([]);
    expect(empty.schema.slice(1).map((e) => e.name)).toEqual(sampleSchema.columns.map((c) => c.name));
  });

  it('writes distinct columns without a dictionary, keeps one for the rest, and min/max with a page index everywhere', async () => {
    const schema: TableSchema = { ...sampleSchema, distinctColumns: ['id', 'createdTime'] };
    const { rows, chunks } = await readParquet(await encode('parquet', sampleRows(50), {}, schema));
    rows.forEach((row, i) => expect(row).toEqual(expectedRow(i)));
    const [group] = chunks;
    for (const name of ['id', 'createdTime']) {
      expect(group![name]!.dictionaryPage, name).toBe(false);
      expect(group![name]!.encodings, name).not.toContain('RLE_DICTIONARY');
    }
    for (const name of ['channelId', 'name', 'editedTime']) expect(group![name]!.dictionaryPage, name).toBe(true);
    expect(group!.id).toMatchObject({ min: 9_007_199_254_740_993n, max: 9_007_199_254_740_993n + 49n, pageIndex: true });
    expect(group!.createdTime).toMatchObject({ min: new Date(Date.UTC(2026, 10, 21, 10, 30, 0, 123)), max: new Date(Date.UTC(2026, 10, 21, 10, 30, 48, 123)), pageIndex: true });
  });
});

describe('NDJSON.gz encoder', () => {
  it('writes one object per line with exact int64 digits and ISO timestamps', async () => {
    const text = gunzipSync(await encode('ndjson', sampleRows(6))).toString();
    const lines = text.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(7);
    expect(lines[0]).toBe(
      '{"id":9007199254740993,"channelId":-42,"bodyLength":-7,"isGuest":true,"name":"ünï \\"q\\", line\\nbreak 0",' +
        '"createdTime":"2026-11-21T10:30:00.123Z","editedTime":"2026-11-21T10:30:00.123456Z"}',
    );
    // Before 1970, the microseconds are still exact.
    expect(JSON.parse(lines[1]!).editedTime).toBe('1969-12-31T23:59:59.998500Z');
    expect(JSON.parse(lines[4]!)).toEqual({ id: 9007199254740996, channelId: null, bodyLength: null, isGuest: null, name: null, createdTime: null, editedTime: null });
  });
});

describe('CSV.gz encoder', () => {
  it('writes a header, quotes what needs it, and keeps null apart from the empty string', async () => {
    const text = gunzipSync(await encode('csv', sampleRows(5))).toString();
    const records = parse(text, { relax_column_count: false }) as string[][];
    expect(records[0]).toEqual(sampleSchema.columns.map((c) => c.name));
    expect(records[1]).toEqual(['9007199254740993', '-42', '-7', 'true', 'ünï "q", line\nbreak 0', '2026-11-21T10:30:00.123Z', '2026-11-21T10:30:00.123456Z']);
    expect(text.split('\n').at(-2)).toBe('9007199254740997,,,,,,');
    expect(text).toContain(',"",'); // row 3 has an empty name
  });
});

describe('values that do not fit the schema', () => {
  it.each(['parquet', 'ndjson', 'csv'] as const)('%s: fails naming the row, the column and the expected type', async (format) => {
    const rows = sampleRows(3);
    rows[2] = { ...rows[2], bodyLength: 'seven' };
    await expect(encode(format, rows)).rejects.toMatchObject({
      code: 'SINK_ROW_INVALID',
      message: 'row 3, column "bodyLength" (int32): expected a 32-bit integer, got "seven"',
      details: { row: 3, column: 'bodyLength' },
    });
    const nullId = [{ ...sampleRows(1)[0], id: null }];
    await expect(encode(format, nullId)).rejects.toThrow('row 1, column "id" (int64): expected a value (the column is not nullable)');
  });
});
