import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FormatError, isPlainCsvLine, isUnparseable, parseLineBatches, sourceItemOf, type ParseRecordsOptions, type SourceItem } from '../../src/formats/index.js';
import { parseAll, pieces } from './collect.js';

const lines = (items: Awaited<ReturnType<typeof parseAll>>) => items.map((i) => i.position.line);

describe('CSV', () => {
  it('reads a header and rows, with the line and index of each record', async () => {
    const items = await parseAll(['id,name\n1,ann\n2,bob\n'], { format: 'csv' });
    expect(items).toEqual([
      { record: { id: '1', name: 'ann' }, position: { file: 'input', line: 2, index: 0 } },
      { record: { id: '2', name: 'bob' }, position: { file: 'input', line: 3, index: 1 } },
    ]);
  });

  it('strips a UTF-8 BOM so the first column keeps its name', async () => {
    const items = await parseAll([Buffer.from([0xef, 0xbb, 0xbf]), 'id,name\r\n1,ann\r\n'], { format: 'csv' });
    expect(items[0]).toMatchObject({ record: { id: '1', name: 'ann' } });
    expect(Object.keys((items[0] as { record: object }).record)).toEqual(['id', 'name']);
  });

  it('counts CRLF lines, quoted CRLF newlines and blank lines exactly, also when read a byte at a time', async () => {
    const text = 'id,body\r\n1,"a\r\nb\r\nc"\r\n\r\n2,plain\r\n3,"x\r\n\r\ny"\r\n4,last';
    for (const size of [1, 2, 3, 7, 1000]) {
      const items = await parseAll(pieces(text, size), { format: 'csv' });
      expect(items.map((i) => (i as { record: Record<string, string> }).record.body)).toEqual(['a\r\nb\r\nc', 'plain', 'x\r\n\r\ny', 'last']);
      expect(lines(items)).toEqual([2, 6, 7, 10]);
      expect(items.map((i) => i.position.index)).toEqual([0, 1, 2, 3]);
    }
  });

  it('counts LF quoted newlines', async () => {
    const items = await parseAll(['id,body\n1,"two\nlines"\n2,"three\n\nlines"\n3,x\n'], { format: 'csv' });
    expect(lines(items)).toEqual([2, 4, 7]);
  });

  it('takes delimiter ";" and another quote character', async () => {
    const items = await parseAll(["a;b\n'x;y';z\n"], { format: 'csv', csv: { delimiter: ';', quote: "'" } });
    expect(items[0]).toMatchObject({ record: { a: 'x;y', b: 'z' } });
  });

  it('reads latin1 when told the encoding', async () => {
    const items = await parseAll([Buffer.from('name\nJosé\n', 'latin1')], { format: 'csv', encoding: 'latin1' });
    expect(items[0]).toMatchObject({ record: { name: 'José' } });
  });

  it('makes a row with the wrong number of fields an unparseable record at its line and goes on', async () => {
    const items = await parseAll(['a,b\n1,2\n3,4,5\n6\n7,8\n'], { format: 'csv' });
    expect(items.map((i) => isUnparseable(i))).toEqual([false, true, true, false]);
    expect(items[1]).toEqual({
      unparseable: { message: 'expected 2 fields (as the header has), found 3', expected: '2 fields', raw: '3,4,5' },
      position: { file: 'input', line: 3, index: 1 },
    });
    expect(items[2]!.position).toEqual({ file: 'input', line: 4, index: 2 });
    expect(items[3]).toMatchObject({ record: { a: '7', b: '8' }, position: { line: 5, index: 3 } });
  });

  it('writes a wrong-count row back as CSV for its reject, quoting what needs quotes, and counts its quoted lines', async () => {
    const items = await parseAll(['a,b\r\nx,"y, ""q""","multi\r\nline"\r\n1,2\r\n'], { format: 'csv' });
    expect(items[0]).toMatchObject({ unparseable: { raw: 'x,"y, ""q""","multi\r\nline"' }, position: { line: 2, index: 0 } });
    expect(items[1]).toMatchObject({ record: { a: '1', b: '2' }, position: { line: 4, index: 1 } });
  });

  it('names columns from `columns`, or by number without a header', async () => {
    expect((await parseAll(['1,2\n'], { format: 'csv', csv: { header: false } }))[0]).toMatchObject({ record: { 1: '1', 2: '2' }, position: { line: 1 } });
    expect((await parseAll(['1,2\n'], { format: 'csv', csv: { header: false, columns: ['x', 'y'] } }))[0]).toMatchObject({ record: { x: '1', y: '2' } });
    expect((await parseAll(['a,b\n1,2\n'], { format: 'csv', csv: { columns: ['x', 'y'] } }))[0]).toMatchObject({ record: { x: '1', y: '2' }, position: { line: 2 } });
  });

  it('keeps a column named __proto__ as an ordinary field', async () => {
    const [item] = await parseAll(['__proto__,b\n1,2\n'], { format: 'csv' });
    const record = (item as { record: Record<string, unknown> }).record;
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.hasOwn(record, '__proto__')).toBe(true);
  });

  it('stops with a FormatError naming the file and the line where broken quoting starts, after the good rows', async () => {
    const seen: number[] = [];
    const run = async () => {
      for (const item of await parseAll(['a,b\r\n1,"x\r\ny"\r\n2,"bad"z\r\n3,"open\r\n4,5\r\n'], { format: 'csv', file: 'f.csv' })) seen.push(item.position.line!);
    };
    await expect(run()).rejects.toMatchObject({ code: 'DATA_INVALID', details: { file: 'f.csv', line: 5, csvCode: 'CSV_QUOTE_NOT_CLOSED' } });
    // Line 4's text after a closing quote is a rejected record, and the rows after it are read.
    const items = await parseAll(['a,b\r\n1,"x\r\ny"\r\n2,"bad"z\r\n3,4\r\n'], { format: 'csv', file: 'f.csv' });
    expect(items.map((i) => [i.position.line, 'record' in i ? i.record : i.unparseable.raw])).toEqual([[2, { a: '1', b: 'x\r\ny' }], [4, '2,"bad"z'], [5, { a: '3', b: '4' }]]);
    await expect(run()).rejects.toBeInstanceOf(FormatError);
  });

  it('rejects a record with a quote inside an unquoted field as unparseable, naming its line, and reads the records after it', async () => {
    for (const size of [1, 4, 1000]) {
      const items = await parseAll(pieces('id,username,display\r\nu2,i-bob,Bob\r\nu3,i-cy,Cy "Q" Oh\r\nu4,i-di,"Di\r\nTwo"\r\n', size), { format: 'csv', file: 'users.csv' });
      expect(items).toEqual([
        { record: { id: 'u2', username: 'i-bob', display: 'Bob' }, position: { file: 'users.csv', line: 2, index: 0 } },
        {
          unparseable: { message: expect.stringMatching(/^a quote inside an unquoted field \(field 3: "Cy \\""\); a field with quotes must be quoted as a whole/), expected: expect.any(String), raw: 'u3,i-cy,Cy "Q" Oh', field: 'display', alone: true },
          position: { file: 'users.csv', line: 3, index: 1 },
        },
        { record: { id: 'u4', username: 'i-di', display: 'Di\r\nTwo' }, position: { file: 'users.csv', line: 4, index: 2 } },
      ]);
    }
    await expect(parseAll(['i"d,name\n1,2\n'], { format: 'csv', file: 'h.csv' })).rejects.toMatchObject({ code: 'DATA_INVALID', details: { file: 'h.csv', line: 1 } });
  });

  it("skips Excel's first line sep=; when it names the stage's delimiter, counting it as line 1", async () => {
    for (const size of [1, 3, 1000]) {
      const items = await parseAll(pieces('sep=;\r\nid;name\r\n1;ann\r\n', size), { format: 'csv', csv: { delimiter: ';' } });
      expect(items).toEqual([{ record: { id: '1', name: 'ann' }, position: { file: 'input', line: 3, index: 0 } }]);
    }
    const tabs = await parseAll(['sep=\t\nid\tname\n1\tann\n'], { format: 'csv', csv: { delimiter: '\t' } });
    expect(tabs).toMatchObject([{ record: { id: '1', name: 'ann' }, position: { line: 3 } }]);
  });

  it('takes a headerless file\'s first line sep=; for Excel\'s note too (as Excel does), saying how to keep it as data', async () => {
    const run = parseAll(['sep=;\nann\nbob\n'], { format: 'csv', file: 'names.csv', csv: { header: false } });
    await expect(run).rejects.toThrow(
      'names.csv: line 1 is "sep=;", Excel\'s note that the file\'s delimiter is ";", but the stage reads it with ","; set the stage\'s source csv: { delimiter: ";" }. ' +
        'If line 1 is data (a one-column file whose first value is "sep=;"), it cannot be read as such in the first line, where Excel also takes it for that note: give the file a header line (csv: { header: true })',
    );
  });

  it('stops at a sep= line naming another delimiter than the stage reads with, saying which to set', async () => {
    const run = parseAll(['sep=;\nid;name\n1;ann\n'], { format: 'csv', file: 'f.csv' });
    await expect(run).rejects.toMatchObject({ code: 'DATA_INVALID', details: { file: 'f.csv', line: 1, found: 'sep=;' } });
    await expect(parseAll(['sep=;\nid;name\n'], { format: 'csv', file: 'f.csv' })).rejects.toThrow('set the stage\'s source csv: { delimiter: ";" }');
  });

  it('names empty header cells by their position (a spreadsheet\'s trailing empty columns), keeping every value', async () => {
    const items = await parseAll(['id;name;;;\r\n1;ann;;x;\r\n'], { format: 'csv', csv: { delimiter: ';' } });
    expect(items).toEqual([{ record: { id: '1', name: 'ann', column3: '', column4: 'x', column5: '' }, position: { file: 'input', line: 2, index: 0 } }]);
  });

  it('names an empty header cell beside a real column of its position name apart from it, as the file read before', async () => {
    const items = await parseAll(['id,,column2\n1,x,y\n'], { format: 'csv' });
    expect(items).toEqual([{ record: { id: '1', column2_2: 'x', column2: 'y' }, position: { file: 'input', line: 2, index: 0 } }]);
  });

  it('refuses a header that names a column twice', async () => {
    await expect(parseAll(['a,a\n1,2\n'], { format: 'csv' })).rejects.toMatchObject({ code: 'DATA_INVALID', details: { line: 1, column: 'a' } });
  });
});

describe('CSV plain lines handed out unsplit (parseLineBatches)', () => {
  async function lineItems(data: Buffer, size: number, options: Partial<ParseRecordsOptions>): Promise<{ items: SourceItem[]; plain: number }> {
    const items: SourceItem[] = [];
    let plain = 0;
    for await (const batch of parseLineBatches(Readable.from(pieces(data, size)), { file: 'input', format: 'csv', ...options }))
      for (const item of batch) {
        if (isPlainCsvLine(item)) plain++;
        items.push(sourceItemOf(item));
      }
    return { items, plain };
  }

  it('give, built back, exactly the records and unparseable rows parseRecordBatches gives, read in pieces of any size', async () => {
    const text = [
      '\uFEFFid,name,n',
      '1,ann,5',
      '2,"a, ""quoted""\r\nname",6',
      '',
      '3,żółw 🐢,',
      ',,',
      '4,too,many,fields',
      '5,few',
      '6,"x",7\r8,lone cr,9',
      '',
      '10,last,without line break',
    ].join('\r\n');
    const cases: Array<[Buffer, Partial<ParseRecordsOptions>]> = [
      [Buffer.from(text), {}],
      [Buffer.from(text.replaceAll('\r\n', '\n')), {}],
      [Buffer.from(`${text}\n`), { csv: { header: false } }],
      [Buffer.from(text.replaceAll(',', '||')), { csv: { delimiter: '||' } }],
      // A byte UTF-8 cannot read: every line is split, so the row holding it is rejected by name.
      [Buffer.concat([Buffer.from('id,name\n1,a\n2,'), Buffer.from([0xe9]), Buffer.from('\n3,c\n')]), {}],
    ];
    for (const [data, options] of cases) {
      const expected = await parseAll([data], options);
      for (const size of [1, 2, 5, 64, 100_000]) {
        const { items, plain } = await lineItems(data, size, options);
        expect(items, `${JSON.stringify(options)} in pieces of ${size}`).toEqual(expected);
        if (size === 100_000 && data.includes(0xe9)) expect(plain).toBe(0);
        else if (size === 100_000) expect(plain).toBeGreaterThan(3);
      }
    }
  });
});
