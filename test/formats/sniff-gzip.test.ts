import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isGzip, sniffFormat } from '../../src/formats/index.js';
import { parseAll, pieces } from './collect.js';

describe('sniffing', () => {
  it('tells JSON arrays, NDJSON and CSV apart by the first bytes, past BOM and whitespace', () => {
    expect(sniffFormat(Buffer.from('  \n[{"a":1}]'))).toBe('json');
    expect(sniffFormat(Buffer.from('\uFEFF{"a":1}\n'))).toBe('ndjson');
    expect(sniffFormat(Buffer.from('id,name\n'))).toBe('csv');
    expect(sniffFormat(Buffer.from(''))).toBe('csv');
    expect(sniffFormat(Buffer.from('[', 'utf16le'))).toBe('json');
  });

  it('parses each format without being told which', async () => {
    expect(await parseAll(['[{"a":1}]'])).toEqual([{ record: { a: 1 }, position: { file: 'input', index: 0 } }]);
    expect(await parseAll(['{"a":1}\n'])).toEqual([{ record: { a: 1 }, position: { file: 'input', line: 1, index: 0 } }]);
    expect(await parseAll(['a\n1\n'])).toEqual([{ record: { a: '1' }, position: { file: 'input', line: 2, index: 0 } }]);
  });

  it('sniffs when the first read is a single byte', async () => {
    expect(await parseAll(pieces('  [{"a":1}]', 1))).toHaveLength(1);
  });

  it('stops, saying what the file is, at a workbook, PDF or Parquet file, whatever the format named', async () => {
    const xlsx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.from('[Content_Types].xml')]);
    for (const format of [undefined, 'csv', 'ndjson'] as const)
      await expect(parseAll(pieces(xlsx, 3), { file: 'users.csv', ...(format ? { format } : {}) })).rejects.toMatchObject({
        code: 'DATA_INVALID',
        message: expect.stringContaining('users.csv: is a ZIP archive (an Excel .xlsx or LibreOffice .ods workbook is one)') as string,
        details: { file: 'users.csv', line: 1 },
      });
    const xls = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]);
    await expect(parseAll([xls], { format: 'csv' })).rejects.toThrow('is an Excel 97-2003 .xls workbook, not CSV text; save the sheet as CSV');
    await expect(parseAll(['%PDF-1.7\n'])).rejects.toThrow('is a PDF document');
  });

  it('stops, saying what the file is, at a gzip file holding a workbook, PDF or Parquet file (an .xlsx.gz)', async () => {
    const xlsx = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]), Buffer.from('[Content_Types].xml')]);
    for (const format of [undefined, 'csv', 'ndjson'] as const)
      await expect(parseAll(pieces(gzipSync(xlsx), 3), { file: 'users.xlsx.gz', ...(format ? { format } : {}) })).rejects.toMatchObject({
        code: 'DATA_INVALID',
        message: expect.stringContaining('users.xlsx.gz: is a gzip file holding a ZIP archive (an Excel .xlsx or LibreOffice .ods workbook is one)') as string,
        details: { file: 'users.xlsx.gz', line: 1 },
      });
    await expect(parseAll([gzipSync(Buffer.from('%PDF-1.7\n'))], { file: 'r.csv.gz' })).rejects.toThrow('r.csv.gz: is a gzip file holding a PDF document, not CSV, NDJSON or JSON text');
    const parquet = Buffer.concat([Buffer.from('PAR1'), Buffer.from([0x15, 0x00, 0x15, 0x1c, 0x15, 0x1c, 0x2c])]);
    await expect(parseAll([gzipSync(parquet)], { file: 'm.csv.gz', format: 'csv' })).rejects.toThrow('m.csv.gz: is a gzip file holding a Parquet file, not CSV text');
    expect(await parseAll([gzipSync('PAR1,PAR2\n1,2\n')])).toEqual([{ record: { PAR1: '1', PAR2: '2' }, position: { file: 'input', line: 2, index: 0 } }]);
  });

  it('stops at a Parquet file, yet reads a CSV that begins with the text PAR1 (a column of that name)', async () => {
    const parquet = Buffer.concat([Buffer.from('PAR1'), Buffer.from([0x15, 0x00, 0x15, 0x1c, 0x15, 0x1c, 0x2c])]);
    await expect(parseAll([parquet], { file: 'm.csv' })).rejects.toThrow('m.csv: is a Parquet file');
    for (const format of [undefined, 'csv'] as const)
      expect(await parseAll(['PAR1,PAR2\n1,2\n'], format ? { format } : {})).toEqual([{ record: { PAR1: '1', PAR2: '2' }, position: { file: 'input', line: 2, index: 0 } }]);
  });

  it('stops at an HTML or XML page read as CSV (an error page saved in place of the data), not at its missing columns', async () => {
    const pages = ['\n<!DOCTYPE html>\n<html><title>502 Bad Gateway</title></html>\n', '<HTML>\n<body>Not Found</body></HTML>', '<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>'];
    for (const page of pages)
      await expect(parseAll(pieces(page, 4), { file: 'users.csv', format: 'csv' })).rejects.toMatchObject({ code: 'DATA_INVALID', details: { file: 'users.csv', line: 1 } });
    await expect(parseAll([pages[0]!], { file: 'users.csv' })).rejects.toThrow('users.csv: is an HTML page, not CSV text; likely an error page saved in place of the data');
    // A CSV whose text merely holds markup is CSV.
    expect(await parseAll(['body\n<html> is a tag\n'], { format: 'csv' })).toEqual([{ record: { body: '<html> is a tag' }, position: { file: 'input', line: 2, index: 0 } }]);
  });
});

describe('gzip', () => {
  it('is detected by its magic bytes and decompressed, for every format, with the same positions', async () => {
    const csv = 'id,body\r\n1,"a\r\nb"\r\n2,c\r\n';
    const plain = await parseAll([csv]);
    for (const size of [1, 5, 100_000]) expect(await parseAll(pieces(gzipSync(csv), size))).toEqual(plain);
    expect(await parseAll([gzipSync('{"a":1}\nnope\n')])).toMatchObject([{ record: { a: 1 } }, { unparseable: {}, position: { line: 2 } }]);
    expect(await parseAll([gzipSync('[{"a":1}]')])).toEqual([{ record: { a: 1 }, position: { file: 'input', index: 0 } }]);
    expect(isGzip(gzipSync('x'))).toBe(true);
  });

  it('can be turned off, and a corrupt stream is an error', async () => {
    expect(await parseAll(['a\n1\n'], { gzip: false })).toHaveLength(1);
    const broken = gzipSync('a\n1\n2\n').subarray(0, 12);
    await expect(parseAll([broken])).rejects.toThrow();
  });
});
