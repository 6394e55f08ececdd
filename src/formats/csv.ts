import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { FormatError } from './errors.js';
import { CsvRowReader, CsvSyntaxError } from './csv-rows.js';
import { clipRaw } from './types.js';
import type { CsvFormatOptions, SourceItem } from './types.js';

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

/**
 * CSV bytes → records in batches (one per input buffer), with the line each record starts on.
 *
 * Rows come from CsvRowReader (csv-rows.ts) as arrays of fields, with the physical lines each took (one,
 * plus the line breaks quoted inside its fields), from which line numbers are counted here. Arrays are
 * what we need anyway to report a wrong field count as a rejected record, with the row written back as
 * CSV, instead of a failed file. Blank lines are skipped (they are not records). Broken quoting stops
 * the file with a FormatError naming the line where the broken record starts, after the rows before it:
 * past it nobody can tell where records begin, and guessing could lose or invent records.
 */
export async function* parseCsvBatches(bytes: Readable, file: string, options: CsvFormatOptions = {}): AsyncGenerator<SourceItem[]> {
  const header = options.header ?? true;
  const delimiter = options.delimiter ?? ',';
  const quote = options.quote ?? '"';
  const reader = new CsvRowReader({ delimiter, quote, bom: options.bom ?? true });
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
function rowsOf(read: () => string[][]): { rows: string[][]; error?: CsvSyntaxError } {
  try {
    return { rows: read() };
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    return { rows: (error as CsvSyntaxError & { rows?: string[][] }).rows ?? [], error };
  }
}

/** Rows → records: the header, line numbers, and wrong field counts as unparseable records. */
class CsvRecords {
  private nextLine = 1;
  private index = 0;
  private columns: string[] | undefined;
  private build: RowBuilder | undefined;

  constructor(
    private readonly file: string,
    private readonly header: boolean,
    private readonly options: CsvFormatOptions,
    private readonly delimiter: string,
    private readonly quote: string,
  ) {
    this.columns = header ? undefined : options.columns;
    this.build = this.columns && compileRowBuilder(this.columns);
    if (this.columns) options.onColumns?.(this.columns);
  }

  /** `lineCounts[i]`: the physical lines row i took (CsvRowReader.takeLineCounts). */
  take(rows: readonly string[][], lineCounts: readonly number[]): SourceItem[] {
    const out: SourceItem[] = [];
    for (let r = 0; r < rows.length; r++) {
      const fields = rows[r]!;
      const line = this.nextLine;
      this.nextLine += lineCounts[r]!;
      if (isBlankRow(fields)) continue;
      if (this.columns === undefined || this.build === undefined) {
        this.columns = this.options.columns ?? (this.header ? fields : fields.map((_, i) => String(i + 1)));
        assertUniqueColumns(this.columns, this.file, line);
        this.build = compileRowBuilder(this.columns);
        this.options.onColumns?.(this.columns);
        if (this.header) continue;
      }
      const position = { file: this.file, line, index: this.index++ };
      if (fields.length !== this.columns.length)
        out.push({
          unparseable: {
            message: `expected ${this.columns.length} fields (as the header has), found ${fields.length}`,
            expected: `${this.columns.length} fields`,
            raw: clipRaw(rowAsCsv(fields, this.delimiter, this.quote)),
          },
          position,
        });
      else out.push({ record: this.build(fields), position });
    }
    return out;
  }

  /** The FormatError for broken quoting in the record that starts at the next line. */
  broken(error: CsvSyntaxError): FormatError {
    return new FormatError(`${this.file}: CSV cannot be read from line ${this.nextLine} on (${error.code}): ${error.message}`, { file: this.file, line: this.nextLine, csvCode: error.code }, error);
  }
}

function assertUniqueColumns(columns: readonly string[], file: string, line: number): void {
  const seen = new Set<string>();
  for (const name of columns) {
    if (seen.has(name))
      throw new FormatError(`${file}: the column name ${JSON.stringify(name)} appears twice in the header (line ${line})`, { file, line, column: name });
    seen.add(name);
  }
}
