import { Parser } from 'csv-parse';
import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { FormatError } from './errors.js';
import { readBatches } from '../shared/read-batches.js';
import { clipRaw } from './types.js';
import type { CsvFormatOptions, SourceItem } from './types.js';

/** Rows the parser may hold before it waits for them to be taken. */
const ROWS_BUFFERED = 128;

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

/** Line breaks in a text: CRLF, LF or a lone CR each count once. */
function countLineBreaks(text: string): number {
  // Most fields have none; indexOf is native and far quicker than a loop over every character.
  if (text.indexOf('\n') === -1 && text.indexOf('\r') === -1) return 0;
  let breaks = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) breaks++;
    else if (c === 13) {
      breaks++;
      if (text.charCodeAt(i + 1) === 10) i++;
    }
  }
  return breaks;
}

/** Physical lines a record takes: its own line, plus the line breaks quoted inside its fields. */
function linesOf(fields: readonly string[]): number {
  let lines = 1;
  for (let i = 0; i < fields.length; i++) lines += countLineBreaks(fields[i]!);
  return lines;
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

/** Put in the row stream, in order, where csv-parse met broken quoting (see below). */
class CsvBreak {
  constructor(readonly error: Error) {}
}

/**
 * CSV bytes → records in batches (see readBatches), with the line each record starts on.
 *
 * csv-parse runs in array mode, and line numbers are counted here: a record takes one line plus the line
 * breaks quoted inside its fields. (csv-parse's own `info.lines` counts a CRLF inside a quoted field twice,
 * and its `raw` option copies every byte once more, which costs a tenth of the parse.) Arrays are what we
 * need anyway to report a wrong field count as a rejected record (`relax_column_count`), with the row
 * written back as CSV, instead of a failed file.
 * Blank lines are skipped (they are not records). Broken quoting stops the file with a FormatError naming
 * the line where the broken record starts: after it, csv-parse cannot tell where records begin, and
 * guessing could lose or invent records. (csv-parse's `skip_records_with_error` + `on_skip` is used only to
 * put that error into the row stream at its place, so rows before it are still delivered and the line is
 * exact; letting the parser fail the stream would drop rows still buffered and the line with them.)
 */
export async function* parseCsvBatches(bytes: Readable, file: string, options: CsvFormatOptions = {}): AsyncGenerator<SourceItem[]> {
  const header = options.header ?? true;
  const delimiter = options.delimiter ?? ',';
  const quote = options.quote ?? '"';
  const parser: Parser = new Parser({
    skip_records_with_error: true,
    on_skip: (error) => {
      parser.push(new CsvBreak(error ?? new Error('unreadable CSV')));
      return undefined;
    },
    delimiter,
    quote,
    bom: options.bom ?? true,
    // The bytes are UTF-8 whatever the file's encoding was (TextNormalizer).
    encoding: 'utf8',
    relax_column_count: true,
    skip_empty_lines: false,
    // Up to this many parsed rows wait in the parser; the next batch takes all of them.
    readableHighWaterMark: ROWS_BUFFERED,
  } as ConstructorParameters<typeof Parser>[0]);
  const rows = pipeline(bytes, parser, () => {
    // Errors reach the consumer through the batches below; this callback only keeps pipeline quiet.
  });

  let nextLine = 1;
  let index = 0;
  let columns: string[] | undefined = header ? undefined : options.columns;
  let build: RowBuilder | undefined = columns && compileRowBuilder(columns);
  if (columns) options.onColumns?.(columns);
  try {
    for await (const batch of readBatches<string[] | CsvBreak>(rows)) {
      const out: SourceItem[] = [];
      for (const row of batch) {
        if (row instanceof CsvBreak) {
          // Rows before the break are delivered; the file stops at it.
          if (out.length > 0) yield out;
          throw row.error;
        }
        const line = nextLine;
        const fields = row;
        nextLine += linesOf(fields);
        if (isBlankRow(fields)) continue;
        if (columns === undefined || build === undefined) {
          columns = options.columns ?? (header ? fields : fields.map((_, i) => String(i + 1)));
          assertUniqueColumns(columns, file, line);
          build = compileRowBuilder(columns);
          options.onColumns?.(columns);
          if (header) continue;
        }
        if (fields.length !== columns.length) {
          out.push({
            unparseable: {
              message: `expected ${columns.length} fields (as the header has), found ${fields.length}`,
              expected: `${columns.length} fields`,
              raw: clipRaw(rowAsCsv(fields, delimiter, quote)),
            },
            position: { file, line, index: index++ },
          });
          continue;
        }
        out.push({ record: build(fields), position: { file, line, index: index++ } });
      }
      if (out.length > 0) yield out;
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
