import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CsvRowReader, CsvSyntaxError, StrayQuoteRow } from '../../src/formats/csv-rows.js';
import { rng } from '../helpers/rng.js';

/** Rows read from `text` fed in pieces of `size` characters, or the error it stopped with. */
function read(text: string, size: number, delimiter = ',', quote = '"'): Array<string[] | StrayQuoteRow> | CsvSyntaxError {
  const reader = new CsvRowReader({ delimiter, quote, bom: true });
  const rows: Array<string[] | StrayQuoteRow> = [];
  try {
    for (let i = 0; i < text.length; i += size) rows.push(...reader.push(text.slice(i, i + size)));
    rows.push(...reader.end());
  } catch (error) {
    if (error instanceof CsvSyntaxError) return error;
    throw error;
  }
  return rows;
}

/** csv-parse, as chatport used it before (array mode, rows of any length, blank lines kept). */
function csvParse(text: string, delimiter = ',', quote = '"', relaxQuotes = false): string[][] | 'error' {
  try {
    return parse(text, { delimiter, quote, bom: true, relax_column_count: true, skip_empty_lines: false, relax_quotes: relaxQuotes }) as string[][];
  } catch {
    return 'error';
  }
}

const PLAIN = ['', 'a', 'hello world', 'émoji 🎉', 'مرحبا', '  spaced  ', '1.5', 'x;y'];
const NEEDS_QUOTES = ['a,b', 'say "hi"', 'line\nbreak', 'crlf\r\nbreak', '"', '""', ',', 'x\r', 'tab\tand, comma'];

function csvField(value: string, delimiter: string): string {
  return value.includes(delimiter) || /["\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

describe('CSV row reader', () => {
  it('reads the same rows as csv-parse from well-formed CSV, however the text is cut, with LF, CRLF or CR line ends', () => {
    const random = rng(11);
    for (let n = 0; n < 200; n++) {
      const delimiter = [',', ';', '\t', '||'][n % 4]!;
      const eol = ['\n', '\r\n', '\r'][Math.floor(random() * 3)]!;
      const rows = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Array.from({ length: 1 + Math.floor(random() * 4) }, () => (random() < 0.6 ? PLAIN : NEEDS_QUOTES)[Math.floor(random() * 8)]!),
      );
      // Lone CRs inside fields only where CR is not the line end (csv-parse takes the first line end it meets).
      const fields = (row: string[]) => row.map((v) => (eol === '\r' ? v.replaceAll('\r', '') : v));
      const text = rows.map((row) => fields(row).map((v) => csvField(v, delimiter)).join(delimiter)).join(eol) + (random() < 0.5 ? eol : '');
      const expected = csvParse(text, delimiter);
      expect(expected, text).not.toBe('error');
      for (const size of [1, 2, 5, 64, text.length]) expect(read(text, size, delimiter), `${JSON.stringify(text)} in pieces of ${size}`).toEqual(expected);
    }
  });

  it('keeps blank lines as rows of one empty field, and a byte order mark out of the first field', () => {
    for (const text of ['a,b\n\n1,2\n', '\uFEFFa,b\r\n\r\n1,2', 'x\n\n\n', '\n']) for (const size of [1, 3, 100]) expect(read(text, size), JSON.stringify(text)).toEqual(csvParse(text));
  });

  it('stops at broken quoting where csv-parse does, naming the fault, after the rows before it', () => {
    // Each error says what to do, too.
    const broken: Array<[string, CsvSyntaxError['code'], RegExp]> = [
      ['a,b\n1,"xy\n2,3\n', 'CSV_QUOTE_NOT_CLOSED', /close its quote/],
    ];
    for (const [text, code, hint] of broken) {
      expect(csvParse(text), text).toBe('error');
      for (const size of [1, 4, 100]) {
        const result = read(text, size);
        expect(result, `${text} in pieces of ${size}`).toBeInstanceOf(CsvSyntaxError);
        expect((result as CsvSyntaxError).code).toBe(code);
        expect((result as CsvSyntaxError).message).toMatch(hint);
      }
    }
    const reader = new CsvRowReader({ delimiter: ',', quote: '"', bom: true });
    expect(reader.push('a,b\n1,2\n3,"xy\n')).toEqual([['a', 'b'], ['1', '2']]);
    expect(() => reader.end()).toThrow(CsvSyntaxError);
  });

  it('gives a record with a quote inside an unquoted field as a StrayQuoteRow, its text as written, and reads on where csv-parse with relax_quotes does', () => {
    const cases: Array<[string, number, string, RegExp]> = [
      ['a,b\n1,x"y\n2,3\n', 1, '1,x"y', /field 2: "x\\""\); a field with quotes must be quoted as a whole, its quotes doubled/],
      ['a,b\r\n1, "b"\r\n2,3', 1, '1, "b"', /field 2/],
      ['a,b,c\nu3,Cy "Q" Oh,"two\nlines"\n4,5,6\n', 1, 'u3,Cy "Q" Oh,"two\nlines"', /field 2: "Cy \\""/],
      ['a;b\rx"";"y"\r7;8', 1, 'x"";"y"', /field 1/],
    ];
    for (const [text, at, raw, message] of cases) {
      const delimiter = text.includes(';') ? ';' : ',';
      const relaxed = csvParse(text, delimiter, '"', true) as string[][];
      expect(csvParse(text, delimiter), text).toBe('error');
      for (const size of [1, 3, 100]) {
        const rows = read(text, size, delimiter) as Array<string[] | StrayQuoteRow>;
        expect(rows, `${text} in pieces of ${size}`).toHaveLength(relaxed.length);
        expect(rows[at]).toBeInstanceOf(StrayQuoteRow);
        expect((rows[at] as StrayQuoteRow).raw).toBe(raw);
        expect((rows[at] as StrayQuoteRow).message).toMatch(message);
        // Every other row as csv-parse reads it: the next record starts where it starts.
        rows.forEach((row, i) => i !== at && expect(row, `${text} row ${i}`).toEqual(relaxed[i]));
      }
    }
  });

  it('gives a record with text after a quoted field\'s closing quote (quotes not doubled) as a StrayQuoteRow, ending where the line does, and counts its lines', () => {
    const text = 'a,b,c\n1,"He said "hi" to me",3\n2,"two\nlines "x" y",4\n5,"x"y\r\n6,7,8';
    for (const size of [1, 3, 100]) {
      const reader = new CsvRowReader({ delimiter: ',', quote: '"', bom: true });
      const rows: Array<string[] | StrayQuoteRow> = [];
      for (let i = 0; i < text.length; i += size) rows.push(...reader.push(text.slice(i, i + size)));
      rows.push(...reader.end());
      expect(rows.map((r) => (r instanceof StrayQuoteRow ? r.raw : r)), `pieces of ${size}`).toEqual([
        ['a', 'b', 'c'], '1,"He said "hi" to me",3', '2,"two\nlines "x" y",4', '5,"x"y', ['6', '7', '8'],
      ]);
      expect((rows[1] as StrayQuoteRow).message).toMatch(/^after a quoted field's closing quote comes "h", not a delimiter or a line break \(field 2\); a quote inside a quoted field is written twice/);
      expect((rows[1] as StrayQuoteRow).fieldNumber).toBe(2);
      expect(reader.takeLineCounts()).toEqual([1, 1, 2, 1, 1]);
    }
  });

  it('counts the physical lines of each row, plain lines and quoted ones mixed, with LF, CRLF and lone CR ends', () => {
    const reader = new CsvRowReader({ delimiter: ',', quote: '"', bom: true });
    const text = 'a,b\r\n1,"two\nlines"\n3,4\r5,6\n\n"x\r\ny",7\r\n8,9\n';
    expect(reader.push(text)).toEqual([['a', 'b'], ['1', 'two\nlines'], ['3', '4'], ['5', '6'], [''], ['x\r\ny', '7'], ['8', '9']]);
    expect(reader.takeLineCounts()).toEqual([1, 2, 1, 1, 1, 2, 1]);
    expect(reader.end()).toEqual([]);
  });

  it('takes another quote character, and a delimiter of several characters cut between pieces', () => {
    expect(read("a;'x;''y'''\n", 1, ';', "'")).toEqual([['a', "x;'y'"]]);
    expect(read('a||b||"c||d"\n1||||3', 1, '||')).toEqual([['a', 'b', 'c||d'], ['1', '', '3']]);
    expect(read('a,b,\n', 2)).toEqual([['a', 'b', '']]);
  });
});
