import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { FormatError } from './errors.js';
import { CsvRowReader, CsvSyntaxError, StrayQuoteRow } from './csv-rows.js';
import { clipRaw } from './types.js';
import type { CsvFormatOptions, LineItem, PlainCsvLine, PlainCsvLineSource, RecordPosition, SourceItem } from './types.js';

type RowBuilder = (fields: string[]) => Record<string, string>;

/**
 * Builds one object per row with a function compiled once from the column names: every row gets the same
 * object shape, which keeps V8's property access fast downstream (the mapping reads these objects).
 */
function compileRowBuilder(columns: readonly string[]): RowBuilder {
  const body = columns
    // A literal `"__proto__": v` would set the prototype; the computed form makes an own property.
    .map((name, i) => (name === '__proto__' ? `["__proto__"]: f[${i}]` : `${JSON.stringify(name)}: f[${i}]`))
    .join(', ');
  return new Function('f', `return { ${body} };`) as RowBuilder;
}

/** A row written back as CSV (quoted where needed), for the reject of a row with the wrong field count. */
function rowAsCsv(fields: readonly string[], delimiter: string, quote: string): string {
  return fields
    .map((f) => (f.includes(delimiter) || f.includes(quote) || /[\r\n]/.test(f) ? `${quote}${f.split(quote).join(quote + quote)}${quote}` : f))
    .join(delimiter);
}

function isBlankRow(fields: string[]): boolean {
  return fields.length === 1 && fields[0] === '';
}

/** Delimiters only (`,,,`, or `"",""`): no field holds anything. A blank line is one empty field, no row. */
function isEmptyRow(fields: readonly string[]): boolean {
  for (const field of fields) if (field !== '') return false;
  return true;
}

/** A row from CsvRowReader: its fields, or (with `plainLines`) a plain line's text, unsplit, or a record to reject. */
type CsvRow = string[] | string | StrayQuoteRow;

const keepLine = (line: string): string => line;

/**
 * CSV bytes → records in batches (one per input buffer), with the line each record starts on.
 *
 * Rows come from CsvRowReader (csv-rows.ts) as arrays of fields, with the physical lines each took (one,
 * plus the line breaks quoted inside its fields), from which line numbers are counted here. Arrays are
 * what we need anyway to report a wrong field count as a rejected record, with the row written back as
 * CSV, instead of a failed file; so is a record with a quote inside an unquoted field, with its text as
 * written. Blank lines are skipped (they are not records). Other broken quoting stops
 * the file with a FormatError naming the line where the broken record starts, after the rows before it:
 * past it nobody can tell where records begin, and guessing could lose or invent records. From
 * csvLineBatches with `plainLines`, a data line without quotes comes out unsplit (PlainCsvLine), in its place.
 */
export function parseCsvBatches(bytes: Readable, file: string, options: CsvFormatOptions = {}): AsyncGenerator<SourceItem[]> {
  // Without plainLines every line is split, so every item is a SourceItem.
  return csvLineBatches(bytes, file, options, false) as AsyncGenerator<SourceItem[]>;
}

export async function* csvLineBatches(bytes: Readable, file: string, options: CsvFormatOptions, plainLines: boolean): AsyncGenerator<LineItem[]> {
  const header = options.header ?? true;
  const delimiter = options.delimiter ?? ',';
  const quote = options.quote ?? '"';
  const reader = new CsvRowReader<CsvRow>({ delimiter, quote, bom: options.bom ?? true, ...(plainLines ? { plainRow: keepLine } : {}) });
  // The bytes are UTF-8 whatever the file's encoding was (TextNormalizer).
  const decoder = new StringDecoder('utf8');
  const records = new CsvRecords(file, header, options, delimiter, quote);
  for await (const chunk of bytes as AsyncIterable<Buffer>) {
    const { rows, error } = rowsOf(() => reader.push(decoder.write(chunk)));
    const out = records.take(rows, reader.takeLineCounts());
    if (out.length > 0) yield out;
    if (error) throw records.broken(error);
  }
  const { rows, error } = rowsOf(() => [...reader.push(decoder.end()), ...reader.end()]);
  const out = records.take(rows, reader.takeLineCounts());
  if (out.length > 0) yield out;
  if (error) throw records.broken(error);
}

/** The rows a read gave, or those before its broken quoting and the error. */
function rowsOf(read: () => CsvRow[]): { rows: CsvRow[]; error?: CsvSyntaxError } {
  try {
    return { rows: read() };
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    return { rows: (error as CsvSyntaxError & { rows?: CsvRow[] }).rows ?? [], error };
  }
}

/** Rows → records: the header, line numbers, and wrong field counts as unparseable records. */
class CsvRecords implements PlainCsvLineSource {
  private nextLine = 1;
  private index = 0;
  private names: string[] | undefined;
  private build: RowBuilder | undefined;

  constructor(
    private readonly file: string,
    private readonly header: boolean,
    private readonly options: CsvFormatOptions,
    readonly delimiter: string,
    private readonly quote: string,
  ) {
    this.names = header ? undefined : options.columns;
    this.build = this.names && compileRowBuilder(this.names);
    if (this.names) options.onColumns?.(this.names);
  }

  /** `lineCounts[i]`: the physical lines row i took (CsvRowReader.takeLineCounts). */
  take(rows: readonly CsvRow[], lineCounts: readonly number[]): LineItem[] {
    const out: LineItem[] = [];
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r]!;
      const line = this.nextLine;
      this.nextLine += lineCounts[r]!;
      if (row instanceof StrayQuoteRow) {
        out.push(this.strayQuoteItem(row, line));
        continue;
      }
      if (typeof row === 'string') {
        // A plain line: blank (not a record), a data line handed out unsplit, or the header, split.
        if (row === '') continue;
        if (this.build !== undefined) {
          out.push({ plainLine: row, line, index: this.index++, from: this } satisfies PlainCsvLine);
          continue;
        }
      }
      const fields = typeof row === 'string' ? row.split(this.delimiter) : row;
      if (line === 1 && isExcelSeparatorLine(fields, this.delimiter, this.file, this.header)) continue;
      if (isBlankRow(fields)) continue;
      if (this.names === undefined || this.build === undefined) {
        this.names = this.options.columns ?? (this.header ? namedByPosition(fields) : fields.map((_, i) => String(i + 1)));
        assertUniqueColumns(this.names, this.file, line);
        this.build = compileRowBuilder(this.names);
        this.options.onColumns?.(this.names);
        if (this.header) continue;
      }
      out.push(this.itemOf(fields, { file: this.file, line, index: this.index++ }));
    }
    return out;
  }

  get columns(): readonly string[] {
    return this.names!;
  }

  /** A plain line handed out unsplit, as take() would have given it. */
  item(line: PlainCsvLine): SourceItem {
    return this.itemOf(line.plainLine.split(this.delimiter), { file: this.file, line: line.line, index: line.index });
  }

  /** A data row's record, or its wrong field count as an unparseable record. */
  private itemOf(fields: string[], position: RecordPosition): SourceItem {
    if (fields.length === this.names!.length) return isEmptyRow(fields) ? { record: this.build!(fields), position, emptyRow: true } : { record: this.build!(fields), position };
    return {
      unparseable: {
        message: `expected ${this.names!.length} fields (as the header has), found ${fields.length}`,
        expected: `${this.names!.length} fields`,
        raw: clipRaw(rowAsCsv(fields, this.delimiter, this.quote)),
      },
      position,
    };
  }

  /**
   * A record with a quote inside an unquoted field, rejected as unparseable; in the header (no column names
   * without it) it stops the file.
   */
  private strayQuoteItem(row: StrayQuoteRow, line: number): SourceItem {
    if (this.names === undefined || this.build === undefined)
      throw new FormatError(`${this.file}: the header (line ${line}) cannot be read: ${row.message}`, { file: this.file, line, found: clipRaw(row.raw) });
    return {
      unparseable: {
        message: row.message,
        expected: 'quotes only around a whole field, doubled inside it',
        raw: clipRaw(row.raw),
        alone: true,
        ...(row.fieldNumber <= this.names.length ? { field: this.names[row.fieldNumber - 1]! } : {}),
      },
      position: { file: this.file, line, index: this.index++ },
    };
  }

  /** The FormatError for broken quoting in the record that starts at the next line. */
  broken(error: CsvSyntaxError): FormatError {
    return new FormatError(`${this.file}: CSV cannot be read from line ${this.nextLine} on (${error.code}): ${error.message}`, { file: this.file, line: this.nextLine, csvCode: error.code }, error);
  }
}

/**
 * Excel writes (and reads) a first line `sep=;` naming the file's delimiter. It is no header and no record:
 * it is skipped when it names the delimiter the stage reads with, and when it names another one the file
 * stops (FormatError) saying so, since every row would otherwise be one field or the wrong fields. In a
 * headerless file the line could be a value, but Excel reads it as the note there too, and so does chatport:
 * the message then says how to keep it as data.
 */
function isExcelSeparatorLine(fields: readonly string[], delimiter: string, file: string, header: boolean): boolean {
  const text = fields.join(delimiter);
  const named = /^sep=([^\r\n])$/.exec(text)?.[1];
  if (named === undefined) return false;
  if (named === delimiter) return true;
  throw new FormatError(
    `${file}: line 1 is ${JSON.stringify(text)}, Excel's note that the file's delimiter is ${JSON.stringify(named)}, but the stage reads it with ${JSON.stringify(delimiter)}; set the stage's source csv: { delimiter: ${JSON.stringify(named)} }${header ? '' : `. If line 1 is data (a one-column file whose first value is ${JSON.stringify(text)}), it cannot be read as such in the first line, where Excel also takes it for that note: give the file a header line (csv: { header: true })`}`,
    { file, line: 1, expected: `delimiter ${JSON.stringify(delimiter)}`, found: text },
  );
}

/**
 * A header cell left empty (a spreadsheet's trailing empty columns: `id;name;;`) names its column by its
 * position, `column4`, as DuckDB does: a mapping cannot name "" anyway, and two of them would otherwise be one
 * name twice, stopping the file, or one value kept of two. A name the header itself holds gets a suffix
 * (`column3_2`): the empty cell beside a real `column3` stopped the file, which read before the naming.
 */
function namedByPosition(fields: readonly string[]): string[] {
  const taken = new Set(fields);
  return fields.map((name, i) => {
    if (name !== '') return name;
    let named = `column${i + 1}`;
    for (let n = 2; taken.has(named); n++) named = `column${i + 1}_${n}`;
    taken.add(named);
    return named;
  });
}

function assertUniqueColumns(columns: readonly string[], file: string, line: number): void {
  const seen = new Set<string>();
  for (const name of columns) {
    if (seen.has(name))
      throw new FormatError(`${file}: the column name ${JSON.stringify(name)} appears twice in the header (line ${line})`, { file, line, column: name });
    seen.add(name);
  }
}
