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
