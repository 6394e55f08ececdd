import { describe, expect, it } from 'vitest';
import { isUnparseable, type SourceItem } from '../../src/formats/index.js';
import { parseAll, pieces } from './collect.js';

const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
const records = (items: SourceItem[]) => items.map((i) => ('record' in i ? i.record : undefined));

describe('bytes the encoding cannot read', () => {
  it('CSV: the row holding an invalid UTF-8 byte is rejected at its line, naming the field and the byte; the others are read', async () => {
    const csv = bytes('name,bio\nalice,ok\n', 'Jos', [0xe9], ',fine\n', 'zoë,“quoted”\n');
    for (const size of [1, 3, 1000]) {
      const items = await parseAll(pieces(csv, size), { format: 'csv', file: 'users.csv' });
      expect(items.map(isUnparseable)).toEqual([false, true, false]);
      expect(items[1]).toEqual({
        unparseable: {
          message: 'invalid UTF-8 in field "name": byte 0xE9 at character 4 cannot be read as UTF-8 (shown as U+FFFD here)',
          expected: 'text in UTF-8',
          raw: { name: 'Jos\uFFFD', bio: 'fine' },
          foundText: 'Jos\uFFFD',
          field: 'name',
        },
        position: { file: 'users.csv', line: 3, index: 1 },
      });
      expect(records(items)[2]).toEqual({ name: 'zoë', bio: '“quoted”' });
    }
  });

  it('NDJSON: the line holding an invalid byte is rejected at its line; a truncated sequence at the end is invalid too', async () => {
    const text = bytes('{"a":"x"}\n{"a":"b', [0xc3, 0x28], '"}\n{"a":"ü"}\n{"a":"', [0xe2, 0x82]);
    for (const size of [1, 2, 1000]) {
      const items = await parseAll(pieces(text, size), { format: 'ndjson' });
      expect(records(items)).toEqual([{ a: 'x' }, undefined, { a: 'ü' }, undefined]);
      expect(items[1]).toMatchObject({ unparseable: { field: 'a', message: expect.stringMatching(/^invalid UTF-8 in field "a": byte 0xC3 at character 2/) }, position: { line: 2 } });
      expect(items[3]).toMatchObject({ unparseable: { message: expect.stringMatching(/^invalid UTF-8: byte 0xE2/) }, position: { line: 4 } });
    }
  });

  it('JSON array: the element holding an invalid byte is rejected at its index, with the path of the field', async () => {
    const items = await parseAll(pieces(bytes('\uFEFF[{"a":{"b":["ok","x', [0xff], '"]}},{"a":1}]'), 4), { format: 'json' });
    expect(items[0]).toMatchObject({ unparseable: { field: 'a.b.1', message: expect.stringContaining('byte 0xFF') }, position: { index: 0 } });
    expect(items[1]).toEqual({ record: { a: 1 }, position: { file: 'input', index: 1 } });
  });

  it('keeps a genuine U+FFFD and private-use characters of a valid file as they are', async () => {
    const items = await parseAll([bytes('{"a":"\uFFFD \u{10FF41}"}\n')], { format: 'ndjson' });
    expect(records(items)).toEqual([{ a: '\uFFFD \u{10FF41}' }]);
  });
});

describe('declared encodings', () => {
  it('latin1: é and the other bytes above 0x7F are their ISO-8859-1 characters', async () => {
    const items = await parseAll(pieces(Buffer.from('name\nJosé\n\u0080x\n', 'latin1'), 2), { format: 'csv', encoding: 'latin1' });
    expect(records(items)).toEqual([{ name: 'José' }, { name: '\u0080x' }]);
  });

  it('windows-1252: € and “ ” come from 0x80–0x9F, é as in latin1; a byte the code page leaves undefined is rejected', async () => {
    const csv = bytes('name,body\n', [0x4a, 0x6f, 0x73, 0xe9], ',', [0x93, 0x31, 0x30, 0x20, 0x80, 0x94], '\nbad,x', [0x81], '\n');
    const items = await parseAll(pieces(csv, 3), { format: 'csv', encoding: 'windows-1252' });
    expect(records(items)[0]).toEqual({ name: 'José', body: '“10 €”' });
    expect(items[1]).toMatchObject({ unparseable: { field: 'body', message: expect.stringContaining('invalid windows-1252 in field "body": byte 0x81') }, position: { line: 3 } });
  });

  it('UTF-16LE with a byte order mark, declared or not, and UTF-16BE by its mark; characters split between reads', async () => {
    const text = 'name,body\nZoë,“hi” 🙂\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    const want = [{ name: 'Zoë', body: '“hi” 🙂' }];
    for (const size of [1, 3, 1000]) {
      expect(records(await parseAll(pieces(le, size), { format: 'csv', encoding: 'utf-16le' }))).toEqual(want);
      expect(records(await parseAll(pieces(le, size), {}))).toEqual(want);
      expect(records(await parseAll(pieces(be, size), { encoding: 'utf-16' }))).toEqual(want);
    }
  });

  it('UTF-16: an unpaired surrogate rejects its record; utf-16 without a byte order mark stops the file', async () => {
    const broken = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\nx', 'utf16le'), Buffer.from([0x00, 0xd8]), Buffer.from('\nok\n', 'utf16le')]);
    const items = await parseAll([broken], { format: 'csv' });
    expect(items[0]).toMatchObject({ unparseable: { field: 'a', message: expect.stringContaining('invalid UTF-16LE in field "a": byte 0x00') }, position: { line: 2 } });
    expect(records(items)[1]).toEqual({ a: 'ok' });
    await expect(parseAll([Buffer.from('a\n', 'utf16le')], { format: 'csv', file: 'x.csv', encoding: 'utf-16' })).rejects.toThrow(/x\.csv: the source declares encoding utf-16 but the file has no byte order mark/);
  });
});
