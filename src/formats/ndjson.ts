import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { parseJsonNoting, type BigIntegers, type Decimals, type ParsedJson } from '../shared/lossless-json.js';
import { jsonRecordProblem } from '../shared/json-checks/json-record.js';
import { clipRaw } from './types.js';
import type { SourceItem } from './types.js';

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function parseLine(text: string, file: string, line: number, index: number, decimals: Decimals, bigIntegers: BigIntegers): SourceItem {
  let parsed: ParsedJson;
  try {
    // Integers beyond 2^53 (snowflake ids) keep their digits: as text or as a bigint (see lossless-json.ts).
    parsed = parseJsonNoting(text, bigIntegers, decimals);
  } catch (error) {
    return {
      unparseable: { message: `not valid JSON: ${(error as Error).message}`, expected: 'one JSON object per line', raw: clipRaw(text) },
      position: { file, line, index },
    };
  }
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      unparseable: { message: `expected a JSON object, found ${describe(value)}`, expected: 'a JSON object', raw: value },
      position: { file, line, index },
    };
  const problem = jsonRecordProblem(parsed, text);
  if (problem) return { unparseable: { ...problem, raw: clipRaw(text) }, position: { file, line, index } };
  return { record: value as Record<string, unknown>, position: { file, line, index } };
}

/**
 * NDJSON (JSON Lines) bytes → records in batches (one per input buffer), one per non-blank line, with its
 * line number. A line that is not a
 * JSON object is an UnparseableRecord at that line; the file goes on. Lines end with LF or CRLF; a UTF-8
 * BOM before the first line is ignored. An integer beyond ±(2^53 − 1) is read as its exact decimal text, or as a
 * bigint (`bigIntegers`).
 */
export async function* parseNdjsonBatches(bytes: Readable, file: string, decimals: Decimals = 'number', bigIntegers: BigIntegers = 'text'): AsyncGenerator<SourceItem[]> {
  const decoder = new StringDecoder('utf8');
  let line = 0;
  let index = 0;
  let first = true;
  const take = (text: string): SourceItem | undefined => {
    line++;
    let content = text.charCodeAt(text.length - 1) === 13 ? text.slice(0, -1) : text;
    if (first) {
      first = false;
      if (content.charCodeAt(0) === 0xfeff) content = content.slice(1);
    }
    if (content.trim() === '') return undefined;
    return parseLine(content, file, line, index++, decimals, bigIntegers);
  };
  // The text after the last newline, in pieces: a line longer than a buffer is joined once when its
  // newline comes, not searched and copied again with every buffer (that cost its length squared).
  const held = new HeldText();
  for await (const chunk of bytes as AsyncIterable<Buffer>) {
    const piece = decoder.write(chunk);
    let nl = piece.indexOf('\n');
    if (nl === -1) {
      held.add(piece);
      continue;
    }
    const batch: SourceItem[] = [];
    let start = 0;
    for (; nl !== -1; nl = piece.indexOf('\n', start)) {
      const item = take(held.take(piece.slice(start, nl)));
      start = nl + 1;
      if (item) batch.push(item);
    }
    held.add(piece.slice(start));
    if (batch.length > 0) yield batch;
  }
  const pending = held.take(decoder.end());
  if (pending !== '') {
    const item = take(pending);
    if (item) yield [item];
  }
}

/** Text kept in pieces until the rest of its line arrives. */
class HeldText {
  private pieces: string[] = [];

  add(piece: string): void {
    if (piece !== '') this.pieces.push(piece);
  }

  /** The held text followed by `last`, and nothing held after. */
  take(last: string): string {
    if (this.pieces.length === 0) return last;
    this.pieces.push(last);
    const text = this.pieces.join('');
    this.pieces = [];
    return text;
  }
}
