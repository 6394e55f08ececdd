/**
 * CSV text → rows of fields, in pieces as the text arrives (RFC 4180, as spreadsheets write it):
 *
 * - a record ends at LF, CRLF or a lone CR; a blank line is a row of one empty field;
 * - a field that starts with the quote character is quoted: it runs to the next lone quote, `""` inside it
 *   is one quote, and delimiters and line breaks inside it are text; the closing quote must be followed by
 *   a delimiter, a line break or the end of the input;
 * - a quote inside an unquoted field (`Cy "Q" Oh`), or text after a quoted field's closing quote (`"He said
 *   "hi" to me"`, quotes not doubled), is taken as text to find where the field and the record end, as
 *   csv-parse's relax_quotes, Python's csv and spreadsheets read it, and the record comes out as a
 *   StrayQuoteRow (the caller rejects it, naming the line): one bad row must not stop a long file, and the
 *   next record starts where every such reader starts it;
 * - a quoted field still open at the end of the input is broken quoting: it stops the reading
 *   (CsvSyntaxError) instead of guessing.
 *
 * It replaced csv-parse here (issue 12): the same rows for well-formed input (test/formats/csv-rows.test.ts
 * compares the two), at a fraction of the cost, because a line without quotes is split natively, other
 * unquoted fields are cut with a plain loop and quoted ones with indexOf, and nothing is copied twice.
 */
export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    /** csv-parse's names for the same faults, kept for users and logs that know them. */
    readonly code: 'CSV_QUOTE_NOT_CLOSED',
  ) {
    super(message);
  }
}

/** A record with a quote inside an unquoted field: its text as written and what is wrong, to reject it. */
export class StrayQuoteRow {
  constructor(
    readonly message: string,
    /** The field holding the quote, counted from 1. */
    readonly fieldNumber: number,
    /** The record's text, without its line break. */
    readonly raw: string,
  ) {}
}

export interface CsvRowOptions<Plain = string[]> {
  delimiter: string;
  quote: string;
  /** Drop a byte order mark at the very start. */
  bom: boolean;
  /**
   * What a plain line (no quote, no lone CR) becomes; default its fields, the line split at the delimiter.
   * A caller that reads values from the text itself takes the line as it is.
   */
  plainRow?: (line: string, delimiter: string) => Plain;
}

/** A plain line's fields: the line split at the delimiter (what parseRecord would find, in native code). */
function splitLine(line: string, delimiter: string): string[] {
  return line.split(delimiter);
}

const LF = 10;
const CR = 13;
/** parseRecord could not finish the record with the text it has: more is needed. */
const INCOMPLETE = -1;

/** Line breaks in a text: CRLF, LF or a lone CR each count once. */
export function countLineBreaks(text: string): number {
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

/**
 * Finds, line by line, the lines of a text that hold no quote and no CR other than a CRLF's: the common
 * line, which needs no field-by-field parsing. Where the next LF, quote and CR are is looked up once and
 * kept until passed, so a text without them (lines ended by lone CRs have no LF) costs one search each,
 * not one a line.
 */
class PlainLines {
  private nextLf = -1;
  private nextQuote = -1;
  private nextCr = -1;

  constructor(
    private readonly text: string,
    private readonly quote: string,
  ) {}

  /** Where the line starting at `at` ends (before its LF or CRLF) if it is plain and whole, else -1. */
  endOf(at: number): number {
    const text = this.text;
    if (this.nextLf < at) this.nextLf = indexOrEnd(text, '\n', at);
    const lf = this.nextLf;
    if (lf === text.length) return -1;
    if (this.nextQuote < at) this.nextQuote = indexOrEnd(text, this.quote, at);
    if (this.nextQuote < lf) return -1;
    if (this.nextCr < at) this.nextCr = indexOrEnd(text, '\r', at);
    let end = lf;
    if (this.nextCr < lf) {
      if (this.nextCr !== lf - 1) return -1;
      end = lf - 1;
    }
    return end;
  }

  /** Where the line after the plain one endOf() last found starts. */
  get next(): number {
    return this.nextLf + 1;
  }
}

/** indexOf, with the text's length for "none" (so that it compares after every position). */
function withoutLineBreak(record: string): string {
  return record.replace(/\r?\n$|\r$/, '');
}

function indexOrEnd(text: string, search: string, from: number): number {
  const at = text.indexOf(search, from);
  return at === -1 ? text.length : at;
}

export class CsvRowReader<Plain = string[]> {
  /** Text not parsed into rows yet: an unfinished record, then the pieces pushed since. */
  private held: string[] = [];
  private heldLength = 0;
  /** Parse again once this much text is held: twice the unfinished record the last parse left. */
  private retryAt = 0;
  /** Physical lines of each row completed since takeLineCounts() (only quoted fields hold line breaks). */
  private lineCounts: number[] = [];
  /** Line breaks inside the quoted fields of the record being parsed. */
  private recordBreaks = 0;
  private started = false;
  /** The first quote found inside an unquoted field of the record being parsed: what to say, and the field. */
  private strayQuote: { message: string; fieldNumber: number } | undefined;
  private readonly delimiter: string;
  private readonly delimiterCode: number;
  private readonly quote: string;
  private readonly quoteCode: number;
  private readonly bom: boolean;
  private readonly plainRow: (line: string, delimiter: string) => Plain;

  constructor(options: CsvRowOptions<Plain>) {
    if (options.quote.length !== 1) throw new RangeError('the CSV quote must be one character');
    this.delimiter = options.delimiter;
    this.delimiterCode = options.delimiter.charCodeAt(0);
    this.quote = options.quote;
    this.quoteCode = options.quote.charCodeAt(0);
    this.bom = options.bom;
    this.plainRow = options.plainRow ?? (splitLine as unknown as (line: string, delimiter: string) => Plain);
  }

  /**
   * Adds text; returns the rows it completed. Throws CsvSyntaxError at broken quoting, with `rows` on the
   * error holding the rows completed before it (so they can still be delivered).
   */
  push(piece: string): Array<string[] | Plain | StrayQuoteRow> {
    this.held.push(piece);
    this.heldLength += piece.length;
    // A record still unfinished is parsed again from its start; waiting until the text has doubled keeps
    // a record of n characters (a long field, or an unclosed quote swallowing the file) at O(n), not n².
    if (this.heldLength < this.retryAt) return [];
    return this.rows(this.takeHeld(), false);
  }

  /** The input has ended: returns the last row, if the text did not end with a line break. */
  end(): Array<string[] | Plain | StrayQuoteRow> {
    return this.rows(this.takeHeld(), true);
  }

  private takeHeld(): string {
    const text = this.held.length === 1 ? this.held[0]! : this.held.join('');
    this.held = [];
    this.heldLength = 0;
    return text;
  }

  /**
   * How many physical lines each row returned since the last call took, in order: one, plus the line
   * breaks quoted inside its fields. Rows completed before a CsvSyntaxError are included.
   */
  takeLineCounts(): number[] {
    const counts = this.lineCounts;
    this.lineCounts = [];
    return counts;
  }

  private rows(text: string, final: boolean): Array<string[] | Plain | StrayQuoteRow> {
    let at = 0;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (this.bom && text.charCodeAt(0) === 0xfeff) at = 1;
    }
    const rows: Array<string[] | Plain | StrayQuoteRow> = [];
    const plain = new PlainLines(text, this.quote);
    while (at < text.length) {
      const end = plain.endOf(at);
      if (end !== -1) {
        // A line with no quote and no lone CR: no field-by-field parsing.
        rows.push(this.plainRow(text.slice(at, end), this.delimiter));
        this.lineCounts.push(1);
        at = plain.next;
        continue;
      }
      const fields: string[] = [];
      let next: number;
      try {
        next = this.parseRecord(text, at, fields, final);
      } catch (error) {
        throw Object.assign(error as CsvSyntaxError, { rows });
      }
      if (next === INCOMPLETE) break;
      if (this.strayQuote === undefined) rows.push(fields);
      else {
        rows.push(new StrayQuoteRow(this.strayQuote.message, this.strayQuote.fieldNumber, withoutLineBreak(text.slice(at, next))));
        this.strayQuote = undefined;
      }
      this.lineCounts.push(1 + this.recordBreaks);
      at = next;
    }
    if (at < text.length) {
      this.held.push(text.slice(at));
      this.heldLength = text.length - at;
    }
    this.retryAt = 2 * this.heldLength;
    return rows;
  }

  /** Parses one record from `at` into `fields`; returns where the next record starts, or INCOMPLETE. */
  private parseRecord(text: string, at: number, fields: string[], final: boolean): number {
    let i = at;
    this.recordBreaks = 0;
    this.strayQuote = undefined;
    for (;;) {
      if (text.charCodeAt(i) === this.quoteCode) {
        i = this.quotedField(text, i, fields, final);
        if (i === INCOMPLETE) return INCOMPLETE;
      } else {
        i = this.plainField(text, i, fields, final);
        if (i === INCOMPLETE) return INCOMPLETE;
      }
      // `i` is at what follows the field: a delimiter, a line break, or the end of the text.
      if (i >= text.length) return final ? i : INCOMPLETE;
      const c = text.charCodeAt(i);
      if (c === LF) return i + 1;
      if (c === CR) {
        if (i + 1 < text.length) return text.charCodeAt(i + 1) === LF ? i + 2 : i + 1;
        return final ? i + 1 : INCOMPLETE;
      }
      // A delimiter (plainField and quotedField stop nowhere else).
      i += this.delimiter.length;
      if (i >= text.length && !final) return INCOMPLETE;
      if (i >= text.length) {
        fields.push('');
        return i;
      }
    }
  }

  /** An unquoted field from `i`: up to a delimiter, a line break or the end of the text. */
  private plainField(text: string, i: number, fields: string[], final: boolean): number {
    const start = i;
    const delimiterCode = this.delimiterCode;
    const quoteCode = this.quoteCode;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === delimiterCode && (this.delimiter.length === 1 || text.startsWith(this.delimiter, i))) break;
      if (c === LF || c === CR) break;
      if (c === quoteCode && this.strayQuote === undefined)
        this.strayQuote = {
          message: `a quote inside an unquoted field (field ${fields.length + 1}: ${JSON.stringify(text.slice(start, i + 1))}); a field with quotes must be quoted as a whole, its quotes doubled`,
          fieldNumber: fields.length + 1,
        };
    }
    // At the end of the text a multi-character delimiter may be cut in two: wait for the rest.
    if (i >= text.length && !final) return INCOMPLETE;
    fields.push(text.slice(start, i));
    return i;
  }

  /** A quoted field from its opening quote at `i`. */
  private quotedField(text: string, i: number, fields: string[], final: boolean): number {
    let value = '';
    let from = i + 1;
    for (;;) {
      const close = text.indexOf(this.quote, from);
      if (close === -1 || close + 1 >= text.length) {
        if (!final) return INCOMPLETE;
        if (close === -1) throw new CsvSyntaxError('a quoted field is still open at the end of the input; close its quote (a field holding the quote character must be quoted as a whole, its quotes doubled)', 'CSV_QUOTE_NOT_CLOSED');
        this.pushQuoted(fields, value + text.slice(from, close));
        return close + 1;
      }
      if (text.charCodeAt(close + 1) === this.quoteCode) {
        value += text.slice(from, close + 1);
        from = close + 2;
        continue;
      }
      const after = text.charCodeAt(close + 1);
      if (after !== LF && after !== CR && !(after === this.delimiterCode && text.startsWith(this.delimiter, close + 1))) {
        if (!final && this.delimiter.length > 1 && this.delimiter.startsWith(text.slice(close + 1))) return INCOMPLETE;
        // The rest of the field is text up to a delimiter or a line break, its quotes too (see the top).
        this.recordBreaks += countLineBreaks(value) + countLineBreaks(text.slice(from, close));
        this.strayQuote ??= {
          message: `after a quoted field's closing quote comes ${JSON.stringify(text.charAt(close + 1))}, not a delimiter or a line break (field ${fields.length + 1}); a quote inside a quoted field is written twice ("")`,
          fieldNumber: fields.length + 1,
        };
        return this.plainField(text, close + 1, fields, final);
      }
      this.pushQuoted(fields, value + text.slice(from, close));
      return close + 1;
    }
  }

  private pushQuoted(fields: string[], value: string): void {
    fields.push(value);
    this.recordBreaks += countLineBreaks(value);
  }
}
