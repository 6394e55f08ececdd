import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import type { Token } from 'stream-json/parser.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import withParser from 'stream-json/utils/with-parser.js';
import { FormatError } from './errors.js';
import { readBatches } from '../shared/read-batches.js';
import type { SourceItem } from './types.js';

/**
 * One JSON array (streamed, never held whole) → records in batches, with their 0-based index. An element that is not
 * an object is an UnparseableRecord at its index. A top-level value that is not an array, or a syntax
 * error, stops the file with a FormatError naming the index of the last element read. An integer beyond
 * ±(2^53 − 1) is read as its exact decimal text, as in NDJSON.
 */
export async function* parseJsonArrayBatches(bytes: Readable, file: string): AsyncGenerator<SourceItem[]> {
  const elements = pipeline(bytes, withParser.asStream(exactIntegerElements, { packKeys: true }), () => {
    // Errors reach the consumer through the batches.
  });
  let last = -1;
  try {
    for await (const batch of readBatches<{ key: number; value: unknown }>(elements)) {
      const out: SourceItem[] = [];
      for (const { key, value } of batch) {
        last = key;
        out.push(elementItem(key, value, file));
      }
      yield out;
    }
  } catch (error) {
    throw new FormatError(
      `${file}: the JSON array cannot be read after element ${last} (${(error as Error).message})`,
      { file, index: last + 1 },
      error,
    );
  }
}

function elementItem(key: number, value: unknown, file: string): SourceItem {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return {
      unparseable: {
        message: `expected a JSON object, found ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}`,
        expected: 'a JSON object',
        raw: value,
      },
      position: { file, index: key },
    };
  return { record: value as Record<string, unknown>, position: { file, index: key } };
}

/** streamArray, fed number tokens that are integers beyond the safe range as strings, so no digit is lost. */
function exactIntegerElements(options?: Parameters<typeof streamArray>[0]) {
  const elements = streamArray(options);
  // Object.assign keeps whatever marks streamArray's function carries (flushable or not), as its type says.
  return Object.assign((token: Token) => elements(isLongInteger(token) ? { name: 'stringValue', value: token.value } : token), elements);
}

const INTEGER_TOKEN = /^-?\d+$/;

function isLongInteger(token: Token): token is Token & { value: string } {
  return (
    token.name === 'numberValue' &&
    typeof token.value === 'string' &&
    token.value.length >= 16 &&
    INTEGER_TOKEN.test(token.value) &&
    !Number.isSafeInteger(Number(token.value))
  );
}
