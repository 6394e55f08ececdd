import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { FormatError } from './errors.js';
import { JsonArraySplitter, JsonArraySyntaxError } from './json-array-split.js';
import { parseJsonNoting, type BigIntegers, type Decimals, type ParsedJson } from '../shared/lossless-json.js';
import { jsonRecordProblem } from '../shared/json-checks/json-record.js';
import { clipRaw, type SourceItem } from './types.js';

/**
 * One JSON array (streamed, never held whole) → records in batches (one per input buffer), with their
 * 0-based index. The array is cut into its elements' texts (json-array-split.ts), each parsed alone with
 * JSON.parse. An element that is not an object is an UnparseableRecord at its index. A top-level value
 * that is not an array, or a syntax error, stops the file with a FormatError naming the index of the last
 * element read; the elements before it are delivered. An integer beyond ±(2^53 − 1) is read as its exact
 * decimal text (or a bigint: `bigIntegers`), as in NDJSON.
 */
export async function* parseJsonArrayBatches(bytes: Readable, file: string, decimals: Decimals = 'number', bigIntegers: BigIntegers = 'text'): AsyncGenerator<SourceItem[]> {
  const decoder = new StringDecoder('utf8');
  const splitter = new JsonArraySplitter();
  let index = 0;
  const unreadable = (error: unknown) =>
    new FormatError(`${file}: the JSON array cannot be read ${index === 0 ? 'before its first element' : `after element ${index - 1}`} (${(error as Error).message})`, { file, index }, error);
  const pieces = async function* () {
    for await (const chunk of bytes as AsyncIterable<Buffer>) yield decoder.write(chunk);
    yield decoder.end();
  };
  for await (const piece of pieces()) {
    const { items, error } = splitAndParse(() => splitter.push(piece), file, index, decimals, bigIntegers);
    index += items.length;
    if (items.length > 0) yield items;
    if (error) throw unreadable(error);
  }
  const { items, error } = splitAndParse(() => splitter.end(), file, index, decimals, bigIntegers);
  index += items.length;
  if (items.length > 0) yield items;
  if (error) throw unreadable(error);
}

/** The elements a push (or the end) of the splitter completed, parsed; and what stopped the file, if anything. */
function splitAndParse(split: () => string[], file: string, firstIndex: number, decimals: Decimals, bigIntegers: BigIntegers): { items: SourceItem[]; error?: unknown } {
  let texts: string[];
  let broken: unknown;
  try {
    texts = split();
  } catch (error) {
    if (!(error instanceof JsonArraySyntaxError)) throw error;
    // The elements before the break are whole: read first, so the error names the last of them.
    texts = error.completed;
    broken = error;
  }
  const { items, error } = parseElements(texts, file, firstIndex, decimals, bigIntegers);
  return { items, error: error ?? broken };
}

/** Parses element texts in order; stops at the first that is not JSON, keeping the items before it. */
function parseElements(texts: readonly string[], file: string, firstIndex: number, decimals: Decimals, bigIntegers: BigIntegers): { items: SourceItem[]; error?: unknown } {
  const items: SourceItem[] = [];
  for (const text of texts) {
    try {
      items.push(elementItem(firstIndex + items.length, parseJsonNoting(text, bigIntegers, decimals), file, text));
    } catch (error) {
      return { items, error };
    }
  }
  return { items };
}

function elementItem(key: number, parsed: ParsedJson, file: string, text: string): SourceItem {
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      unparseable: {
        message: `expected a JSON object, found ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`,
        expected: 'a JSON object',
        raw: value,
      },
      position: { file, index: key },
    };
  const problem = jsonRecordProblem(parsed, text);
  if (problem) return { unparseable: { ...problem, raw: clipRaw(text) }, position: { file, index: key } };
  return { record: value as Record<string, unknown>, position: { file, index: key } };
}
