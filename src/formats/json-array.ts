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
 * JSON.parse. An element that is not an object is an UnparseableRecord at its index, and so is one that
 * is not valid JSON when its extent is sure (mayHoldSeveralElements): one bad record must not stop a long
 * file. A top-level value that is not an array, a break in the array's own syntax, or a bad element that
 * may have swallowed the ones after it (an unclosed string moves every boundary after it) stops the file
 * with a FormatError naming the index of the last element read; the elements before it are delivered. An integer beyond ±(2^53 − 1) is read as its exact
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

/**
 * Parses element texts in order. One that is not JSON is rejected at its index, unless it may hold several
 * elements: then the file stops there, keeping the items before it.
 */
function parseElements(texts: readonly string[], file: string, firstIndex: number, decimals: Decimals, bigIntegers: BigIntegers): { items: SourceItem[]; error?: unknown } {
  const items: SourceItem[] = [];
  for (const text of texts) {
    const index = firstIndex + items.length;
    let parsed: ParsedJson;
    try {
      parsed = parseJsonNoting(text, bigIntegers, decimals);
    } catch (error) {
      if (mayHoldSeveralElements(text)) return { items, error };
      items.push({ unparseable: { message: `not valid JSON: ${(error as Error).message}`, expected: 'one JSON object per array element', raw: clipRaw(text), alone: true }, position: { file, index } });
      continue;
    }
    items.push(elementItem(index, parsed, file, text));
  }
  return { items };
}

/**
 * Whether a bad element's text may be several elements run together: the splitter cuts elements by their
 * quotes and brackets, so an odd quote (an unclosed string) moves every boundary after it, and the next
 * elements' `},{` then sit inside the cut text. Such a text, or any with `}` `,` `{` (an object list
 * inside one element looks the same, and stops the file as before), is not rejected alone.
 */
function mayHoldSeveralElements(text: string): boolean {
  return /\}\s*,\s*\{/.test(text);
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
