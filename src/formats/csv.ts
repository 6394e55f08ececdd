import { Parser } from 'csv-parse';
import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { FormatError } from './errors.js';
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

/** Line breaks in a record's raw text: CRLF, LF or a lone CR each count once. */
function countLineBreaks(raw: string): number {
  let breaks = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 10) breaks++;
    else if (c === 13) {
      breaks++;
      if (raw.charCodeAt(i + 1) === 10) i++;
    }
  }
  return breaks;
}

function isBlankRow(fields: string[]): boolean {
  return fields.length === 1 && fields[0] === '';
}

interface RawRow {
  record: string[];
  raw: string;
}

/** Put in the row stream, in order, where csv-parse met broken quoting (see below). */
class CsvBreak {
  constructor(readonly error: Error) {}
}

/**
 * CSV bytes → records, with the line each record starts on.
 *
 * csv-parse runs in array mode with `raw`, and line numbers are counted here from each row's raw text:
 * csv-parse's own `info.lines` counts a CRLF inside a quoted field twice, and rows are what we need anyway
 * to report a wrong field count as a rejected record (`relax_column_count`) instead of a failed file.
 * Blank lines are skipped (they are not records). Broken quoting stops the file with a FormatError naming
 * the line where the broken record starts: after it, csv-parse cannot tell where records begin, and
 * guessing could lose or invent records. (csv-parse's `skip_records_with_error` + `on_skip` is used only to
 * put that error into the row stream at its place, so rows before it are still delivered and the line is
 * exact; letting the parser fail the stream would drop rows still buffered and the line with them.)
 */
export async function* parseCsvRecords(bytes: Readable, file: string, options: CsvFormatOptions = {}): AsyncGenerator<SourceItem> {
  const header = options.header ?? true;
  const parser: Parser = new Parser({
    skip_records_with_error: true,
    on_skip: (error) => {
      parser.push(new CsvBreak(error ?? new Error('unreadable CSV')));
      return undefined;
    },
    delimiter: options.delimiter ?? ',',
    quote: options.quote ?? '"',
    bom: options.bom ?? true,
    encoding: options.encoding ?? 'utf8',
    raw: true,
    relax_column_count: true,
    skip_empty_lines: false,
  });
  const rows = pipeline(bytes, parser, () => {
    // Errors reach the consumer through the iterator below; this callback only keeps pipeline quiet.
  }) as AsyncIterable<RawRow | CsvBreak>;

  let nextLine = 1;
  let index = 0;
  let columns: string[] | undefined = header ? undefined : options.columns;
  let build: RowBuilder | undefined = columns && compileRowBuilder(columns);
  try {
    for await (const row of rows) {
      if (row instanceof CsvBreak) throw row.error;
      const line = nextLine;
      nextLine += countLineBreaks(row.raw);
      const fields = row.record;
      if (isBlankRow(fields)) continue;
      if (columns === undefined || build === undefined) {
        columns = options.columns ?? (header ? fields : fields.map((_, i) => String(i + 1)));
        assertUniqueColumns(columns, file, line);
        build = compileRowBuilder(columns);
        if (header) continue;
      }
      if (fields.length !== columns.length) {
        yield {
          unparseable: {
            message: `expected ${columns.length} fields (as the header has), found ${fields.length}`,
            expected: `${columns.length} fields`,
            raw: clipRaw(row.raw.replace(/\r?\n$|\r$/, '')),
          },
          position: { file, line, index: index++ },
        };
        continue;
      }
      yield { record: build(fields), position: { file, line, index: index++ } };
    }
  } catch (error) {
    if (error instanceof FormatError) throw error;
    const code = (error as { code?: string }).code;
    throw new FormatError(
      `${file}: CSV cannot be read from line ${nextLine} on (${code ?? 'error'}): ${(error as Error).message.replace(/ (at|on) line \d+/, '')}`,
      { file, line: nextLine, csvCode: code },
      error,
    );
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
