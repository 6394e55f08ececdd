/**
 * A key written twice in one JSON object (`{"id":6,"id":7}`): JSON.parse keeps the last value silently,
 * where a CSV header naming a column twice is refused. Such a record is refused too, naming the key.
 *
 * Cheap in the common case: every key token ends with `"` and then `:` (spaces allowed between), so the
 * count of such colons is at least the number of key tokens, and it equals the number of keys the parsed
 * value holds unless a key repeats or a string holds an escaped quote before a colon (`\":`). Only then is
 * the text walked, object by object.
 */
import { isColonAt, isSpace, keyOf, stringEnd } from './json-text.js';

/** The first key an object of the text repeats, with the keys of the objects around it; undefined when none. */
export function duplicateKeyIn(text: string, keyCount: number): { key: string; path: string[] } | undefined {
  return keyColonsIn(text) > keyCount ? firstRepeatedKey(text) : undefined;
}

export function duplicateKeyMessage(found: { key: string; path: string[] }): string {
  const where = found.path.length === 0 ? 'the record' : `the object ${found.path.map((k) => JSON.stringify(k)).join(' → ')}`;
  return `the key ${JSON.stringify(found.key)} appears twice in ${where}: only one of its values would be kept, silently`;
}

/** Colons whose previous character other than a space is a quote: at least one per key token. */
function keyColonsIn(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) {
    let i = at - 1;
    while (isSpace(text.charCodeAt(i))) i--;
    if (text.charCodeAt(i) === 0x22 /* " */) count++;
  }
  return count;
}

/** Walks the text (valid JSON) with one key set per open object (undefined for an array). */
function firstRepeatedKey(text: string): { key: string; path: string[] } | undefined {
  const open: Array<Set<string> | undefined> = [];
  /** The last key read in each open object: the path to where a repeat is. */
  const lastKeys: Array<string | undefined> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      open.push(c === 0x7b ? new Set() : undefined);
      lastKeys.push(undefined);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      lastKeys.pop();
    } else if (c === 0x22) {
      const end = stringEnd(text, i);
      const keys = open[open.length - 1];
      // In an object, a string followed by a colon is a key; any other is a value.
      if (keys && isColonAt(text, end + 1)) {
        const key = keyOf(text, i, end);
        if (keys.has(key)) return { key, path: lastKeys.slice(0, -1).filter((k) => k !== undefined) };
        keys.add(key);
        lastKeys[lastKeys.length - 1] = key;
      }
      i = end;
    }
  }
  return undefined;
}
