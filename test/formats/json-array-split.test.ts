import { describe, expect, it } from 'vitest';
import { JsonArraySplitter } from '../../src/formats/json-array-split.js';
import { rng } from '../helpers/rng.js';

/** Splits `text` fed in pieces of `size` characters; the elements parsed, or the error thrown. */
function split(text: string, size: number): unknown[] | Error {
  const splitter = new JsonArraySplitter();
  const elements: unknown[] = [];
  try {
    for (let i = 0; i < text.length; i += size) for (const t of splitter.push(text.slice(i, i + size))) elements.push(JSON.parse(t));
    for (const t of splitter.end()) elements.push(JSON.parse(t));
  } catch (error) {
    return error as Error;
  }
  return elements;
}

function wholeParse(text: string): unknown[] | 'invalid' {
  try {
    const value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
    return Array.isArray(value) ? value : 'invalid';
  } catch {
    return 'invalid';
  }
}

/** Random JSON values with the characters that matter: quotes, escaped quotes, backslashes, brackets in strings. */
function value(random: () => number, depth: number): unknown {
  const r = random();
  if (depth > 3 || r < 0.3) {
    const strings = ['', 'a', 'a"b', 'a\\', '\\"', '[', ']', '{', '}', ',', ' ', 'é🎉', '\\\\"x', '\n'];
    const scalars = [0, -1, 1.5e3, true, false, null, 12345678901234];
    return random() < 0.6 ? strings[Math.floor(random() * strings.length)] : scalars[Math.floor(random() * scalars.length)];
  }
  if (r < 0.65) return Array.from({ length: Math.floor(random() * 4) }, () => value(random, depth + 1));
  return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}"[`, value(random, depth + 1)]));
}

describe('JSON array splitter', () => {
  it('gives the same elements as JSON.parse of the whole text, however the text is cut', () => {
    const random = rng(7);
    for (let n = 0; n < 300; n++) {
      const elements = Array.from({ length: Math.floor(random() * 6) }, () => value(random, 0));
      const spaced = random() < 0.5;
      const text = spaced ? `\uFEFF [\n ${elements.map((e) => JSON.stringify(e, null, 1)).join(' ,\n ')} \n] \n` : JSON.stringify(elements);
      const expected = wholeParse(text);
      for (const size of [1, 2, 3, 7, 64, text.length]) expect(split(text, size), `${text} in pieces of ${size}`).toEqual(expected);
    }
  });

  it('refuses what JSON.parse refuses: broken separators, trailing commas, text after the array, no array', () => {
    const bad = ['', '   ', '{}', '1', '[', '[1', '[1,', '[1,]', '[,1]', '[1 2]', '[1]]', '[1] x', '[1],[2]', '[{"a":1}}]', '["a"x]', '[{"a":"b]', 'x[1]', '[1,,2]', '[[1,2]', '[{"a":[1}]'];
    for (const text of bad) {
      expect(wholeParse(text), text).toBe('invalid');
      for (const size of [1, 3, 100]) expect(split(text, size), `${text} in pieces of ${size}`).toBeInstanceOf(Error);
    }
  });

  it('accepts the shapes JSON allows: empty arrays, scalars, nested arrays, whitespace anywhere between tokens', () => {
    for (const text of ['[]', ' [ ] ', '[1]', '[ "a" , 2 ,null ]', '[[1,[2]],{"a":[]}]', '[\t{"x":"]"}\r\n]']) {
      for (const size of [1, 2, 100]) expect(split(text, size), text).toEqual(wholeParse(text));
    }
  });

  it('names the character where the array breaks, also after an element that spanned several pieces', () => {
    const text = `[1, {"a":"${'x'.repeat(200)}"} x]`;
    for (const size of [1, 7, 64, text.length]) {
      const error = split(text, size);
      expect(error, `pieces of ${size}`).toBeInstanceOf(Error);
      expect((error as Error).message, `pieces of ${size}`).toBe(`expected \`,\` or \`]\` after an element, found \`x\` at character ${text.indexOf(' x') + 1}`);
    }
  });
});
