import { describe, expect, it } from 'vitest';
import { parseAll, pieces } from './collect.js';

describe('NDJSON', () => {
  it('gives each object its line; bad lines and non-objects are unparseable at their line; blank lines are skipped', async () => {
    const text = '{"a":1}\r\n\n{"a":2,\n[1]\n"x"\n{"a":3}';
    for (const size of [1, 4, 1000]) {
      const items = await parseAll(pieces(text, size), { format: 'ndjson' });
      expect(items.map((i) => ('record' in i ? i.record : i.unparseable.expected))).toEqual([{ a: 1 }, 'one JSON object per line', 'a JSON object', 'a JSON object', { a: 3 }]);
      expect(items.map((i) => i.position.line)).toEqual([1, 3, 4, 5, 6]);
      expect(items.map((i) => i.position.index)).toEqual([0, 1, 2, 3, 4]);
    }
  });

  it('keeps the raw text of an unreadable line', async () => {
    const [item] = await parseAll(['{"a": nope}\n'], { format: 'ndjson' });
    expect(item).toMatchObject({ unparseable: { raw: '{"a": nope}' }, position: { line: 1 } });
  });

  it('decodes multi-byte characters split across reads, and ignores a BOM', async () => {
    const items = await parseAll(pieces('\uFEFF{"name":"Zoë 🙂"}\n', 1), { format: 'ndjson' });
    expect(items).toEqual([{ record: { name: 'Zoë 🙂' }, position: { file: 'input', line: 1, index: 0 } }]);
  });
});

describe('JSON array', () => {
  it('streams the elements with their index; non-objects are unparseable', async () => {
    const items = await parseAll(pieces('[{"a":1}, 2, {"b":{"c":[1,2]}}]', 3), { format: 'json' });
    expect(items).toEqual([
      { record: { a: 1 }, position: { file: 'input', index: 0 } },
      { unparseable: { message: 'expected a JSON object, found a number', expected: 'a JSON object', raw: 2 }, position: { file: 'input', index: 1 } },
      { record: { b: { c: [1, 2] } }, position: { file: 'input', index: 2 } },
    ]);
  });

  it('stops with a FormatError after the last good element when the array is broken', async () => {
    const seen: number[] = [];
    const run = async () => {
      for (const i of await parseAll(['[{"a":1},{"a":2},{"a":'], { format: 'json', file: 'x.json' })) seen.push(i.position.index);
    };
    await expect(run()).rejects.toMatchObject({ code: 'DATA_INVALID', details: { file: 'x.json', index: 2 } });
  });

  it('text after the closing bracket: the elements before it are read, and the error names the last of them', async () => {
    const { parseRecordBatches } = await import('../../src/formats/index.js');
    const { Readable } = await import('node:stream');
    const seen: number[] = [];
    const run = async () => {
      for await (const batch of parseRecordBatches(Readable.from([Buffer.from('[{"a":1},{"a":2}] trailing')]), { format: 'json', file: 'x.json' })) for (const i of batch) seen.push(i.position.index);
    };
    await expect(run()).rejects.toMatchObject({ code: 'DATA_INVALID', message: expect.stringContaining('x.json: the JSON array cannot be read after element 1 (text after the end of the array'), details: { index: 2 } });
    expect(seen).toEqual([0, 1]);
    await expect(parseAll(['[ , {"a":1}]'], { format: 'json', file: 'y.json' })).rejects.toMatchObject({ message: expect.stringContaining('cannot be read before its first element') });
  });

  it('rejects an element that is not valid JSON at its index and reads on, however the text is cut', async () => {
    for (const size of [1, 5, 1000]) {
      const items = await parseAll(pieces('[{"a":1},\n{"a":2,},\n{"t":"he said "hi""},\n{"a":tru}, {"a":4}]', size), { format: 'json', file: 'x.json' });
      expect(items.map((i) => ('record' in i ? i.record : i.unparseable.raw)), `pieces of ${size}`).toEqual([{ a: 1 }, '{"a":2,}', '{"t":"he said "hi""}', '{"a":tru}', { a: 4 }]);
      expect(items.map((i) => i.position.index)).toEqual([0, 1, 2, 3, 4]);
      expect(items[1]).toMatchObject({ unparseable: { message: expect.stringMatching(/^not valid JSON: /), expected: 'one JSON object per array element' } });
    }
  });

  it('stops at a bad element that may hold the next ones (an unclosed string moves every boundary after it), after the elements before it', async () => {
    for (const text of ['[{"a":1},{"t":"a"b"},{"t":"c"},{"t":"d"}]', '[{"a":1},{"l":[{"x":1},{"y":}]},{"a":2}]']) {
      const seen: number[] = [];
      const run = async () => {
        for (const i of await parseAll([text], { format: 'json', file: 'x.json' })) seen.push(i.position.index);
      };
      await expect(run(), text).rejects.toMatchObject({ code: 'DATA_INVALID', details: { file: 'x.json' } });
    }
  });

  it('refuses a top-level value that is not an array', async () => {
    await expect(parseAll(['{"a":1}'], { format: 'json' })).rejects.toMatchObject({ code: 'DATA_INVALID' });
  });
});

describe('numbers a double cannot hold', () => {
  const lines = ['{"p":1e400}', '{"p":-2e308,"s":"1e400"}', '{"p":1e-400}', `{"p":0.${'0'.repeat(400)}1}`, '{"p":1.5e300,"q":5e-324,"s":"1e999","z":0e-999}', '{"id":123456789012345678901234567890}'];

  it.each(['ndjson', 'json'] as const)('%s: a record holding one is unparseable, naming the token and what it would become; the others are read as written', async (format) => {
    const text = format === 'ndjson' ? lines.join('\n') : `[${lines.join(',')}]`;
    const items = await parseAll(pieces(text, 7), { format });
    const messages = items.map((i) => ('unparseable' in i ? i.unparseable.message : undefined));
    expect(messages[0]).toMatch(/^the number 1e400 at character 6 is beyond what a JSON number holds here .* it would arrive as null/);
    expect(messages[1]).toMatch(/^the number -2e308 at character 6 .* would arrive as null/);
    expect(messages[2]).toMatch(/^the number 1e-400 at character 6 .* would arrive as 0/);
    expect(messages[3]).toMatch(/^the number 0\.0{18}…0{9}1 at character 6 .* would arrive as 0/);
    expect(items.slice(4).map((i) => ('record' in i ? i.record : i))).toEqual([{ p: 1.5e300, q: 5e-324, s: '1e999', z: 0 }, { id: '123456789012345678901234567890' }]);
  });
});

describe('a key written twice in one object', () => {
  const lines = [
    '{"id":6,"name":"a","id":7}',
    '{"a":1, "b":{"x":1,"y":[{"z":1,"z":2}]}}',
    '{"a" : 1,\t"\\u0061" \t: 2}',
    '{"p":{"x":1,"x":2}}',
    // Not repeats: the same key in different objects, a string holding \": (an escaped quote before a colon), keys as values.
    '{"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}',
    '{"s":"he said \\"id\\": 7","id":1,"t":"a\\\\","k":["id","id"]}',
    '{"a\\\\":1,"a":2}',
  ];

  it.each(['ndjson', 'json'] as const)('%s: the record is unparseable, naming the key and the object it is in; others are read as written', async (format) => {
    const text = format === 'ndjson' ? lines.join('\n') : `[${lines.join(',')}]`;
    const items = await parseAll(pieces(text, 5), { format });
    const messages = items.map((i) => ('unparseable' in i ? i.unparseable.message : undefined));
    expect(messages.slice(0, 4)).toEqual([
      'the key "id" appears twice in the record: only one of its values would be kept, silently',
      'the key "z" appears twice in the object "b" → "y": only one of its values would be kept, silently',
      'the key "a" appears twice in the record: only one of its values would be kept, silently',
      'the key "x" appears twice in the object "p": only one of its values would be kept, silently',
    ]);
    expect(items[0]).toMatchObject({ unparseable: { expected: 'each key once in an object', raw: lines[0] } });
    expect(items.slice(4).map((i) => ('record' in i ? i.record : i))).toEqual([
      { a: { x: 1 }, b: { x: 2 }, c: [{ x: 1 }, { x: 2 }] },
      { s: 'he said "id": 7', id: 1, t: 'a\\', k: ['id', 'id'] },
      { 'a\\': 1, a: 2 },
    ]);
  });
});

describe('half of a surrogate pair written alone as an escape', () => {
  const lines = [
    '{"id":1,"dn":"Lone \\ud800 surrogate"}',
    '{"id":2,"m":{"k\\uDC00":1}}',
    '{"id":3,"tags":["ok","\\udbff"]}',
    // Not lone: a pair written as escapes, a pair written as text, an escaped backslash before "ud800".
    '{"id":4,"dn":"pair \\ud83d\\ude00 \u{1F600}","p":"\\\\ud800"}',
  ];

  it.each(['ndjson', 'json'] as const)('%s: the record is unparseable, naming the field and the unit (UTF-8 cannot hold it); pairs are read as written', async (format) => {
    const text = format === 'ndjson' ? lines.join('\n') : `[${lines.join(',')}]`;
    const items = await parseAll(pieces(text, 7), { format });
    expect(items.slice(0, 3).map((i) => ('unparseable' in i ? [i.unparseable.message, i.unparseable.field] : i))).toEqual([
      ['field "dn" holds \\uD800 at character 6 without the other half of its surrogate pair: not a Unicode character, so UTF-8 (what the platform stores) cannot hold it', 'dn'],
      ['the field name "m.k\\udc00" holds \\uDC00 at character 2 without the other half of its surrogate pair: not a Unicode character, so UTF-8 (what the platform stores) cannot hold it', undefined],
      ['field "tags.1" holds \\uDBFF at character 1 without the other half of its surrogate pair: not a Unicode character, so UTF-8 (what the platform stores) cannot hold it', 'tags.1'],
    ]);
    expect(items[0]).toMatchObject({ unparseable: { expected: 'Unicode text (a \\uD800–\\uDFFF escape only as half of a pair)', raw: lines[0] } });
    expect(items[3]).toMatchObject({ record: { id: 4, dn: 'pair \u{1F600} \u{1F600}', p: '\\ud800' } });
  });
});
