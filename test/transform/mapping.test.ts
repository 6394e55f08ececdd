import { describe, expect, it } from 'vitest';
import { compileMapping, MappingError } from '../../src/transform/index.js';
import type { NestedMapping, Reason } from '../../src/transform/index.js';

function run(mapping: NestedMapping, record: Record<string, unknown>, impliedTypes = {}) {
  const reasons: Reason[] = [];
  const item = compileMapping(mapping, { impliedTypes }).map(record, reasons);
  return { item, reasons };
}

describe('compileMapping', () => {
  it('renames fields, sets constants and keeps the mapping\'s field order', () => {
    const { item, reasons } = run({ name: 'login', kind: { const: 'PUBLIC' }, list: { const: [1, 2] } }, { login: 'ann', other: 'x' });
    expect(reasons).toEqual([]);
    expect(JSON.stringify(item)).toBe('{"name":"ann","kind":"PUBLIC","list":[1,2]}');
  });

  it('combines fields with templates; missing fields are empty, all missing is missing, braces escape', () => {
    const m = { full: { template: '{first} {last}' }, raw: { template: '{{{id}}}' }, nothing: { template: '{a}{b}', default: 'none' } };
    expect(run(m, { first: 'Ann', last: 'Lee', id: 7 }).item).toEqual({ full: 'Ann Lee', raw: '{7}', nothing: 'none' });
    expect(run(m, { first: 'Ann' }).item).toEqual({ full: 'Ann', nothing: 'none' });
  });

  it('coerces CSV text to booleans, numbers, integers, dates and JSON', () => {
    const m = {
      b: { field: 'b', type: 'boolean' },
      n: { field: 'n', type: 'number' },
      i: { field: 'i', type: 'integer' },
      d: { field: 'd', type: 'date' },
      t: { field: 't', type: 'date' },
      j: { field: 'j', type: 'json' },
      s: { field: 's', type: 'string' },
    } as const satisfies NestedMapping;
    const { item, reasons } = run(m, { b: ' Yes ', n: '-1.5e2', i: '42', d: '2024-02-29', t: '2024-01-31 12:30:00+02:00', j: '{"x":[1]}', s: 12 });
    expect(reasons).toEqual([]);
    expect(item).toEqual({ b: true, n: -150, i: 42, d: '2024-02-29T00:00:00.000Z', t: '2024-01-31T10:30:00.000Z', j: { x: [1] }, s: '12' });
  });

  it('takes canonical ISO timestamps as they are, and still refuses ones whose fields are out of range', () => {
    const m = { d: { field: 'd', type: 'date' } } as const satisfies NestedMapping;
    expect(run(m, { d: '2024-02-29T23:59:59.999Z' })).toEqual({ item: { d: '2024-02-29T23:59:59.999Z' }, reasons: [] });
    expect(run(m, { d: '1999-12-31T00:00:00.000Z' }).item).toEqual({ d: '1999-12-31T00:00:00.000Z' });
    for (const bad of ['2023-02-29T00:00:00.000Z', '1900-02-29T00:00:00.000Z', '2024-04-31T00:00:00.000Z', '2024-13-01T00:00:00.000Z', '2024-01-01T00:60:00.000Z', '2024-00-10T00:00:00.000Z'])
      expect(run(m, { d: bad }).reasons.map((r) => r.found)).toEqual([JSON.stringify(bad)]);
    expect(run(m, { d: '2000-02-29T12:00:00.000Z' }).item).toEqual({ d: '2000-02-29T12:00:00.000Z' });
  });

  it('reports every value that cannot be coerced with its item path, source field and what was expected', () => {
    const m = {
      isGuest: { field: 'guest', type: 'boolean' },
      properties: { age: { field: 'age', type: 'integer' }, when: { field: 'when', type: 'date' }, size: { field: 'size', type: 'number' } },
    } as const satisfies NestedMapping;
    const { item, reasons } = run(m, { guest: 'maybe', age: '4.5', when: '2023-02-30', size: '0x10' });
    expect(item).toEqual({});
    expect(reasons.map((r) => [r.field, r.sourceField, r.found])).toEqual([
      ['isGuest', 'guest', '"maybe"'],
      ['properties.age', 'age', '"4.5"'],
      ['properties.when', 'when', '"2023-02-30"'],
      ['properties.size', 'size', '"0x10"'],
    ]);
    expect(reasons[0]!.expected).toMatch(/boolean/);
    expect(reasons[0]!.message).toBe('isGuest (from source field "guest"): expected a boolean (true/false, yes/no, y/n, 1/0, on/off), found "maybe"');
  });

  it('splits a delimited field into an array, coercing each item, and accepts arrays from JSON sources', () => {
    const m = { tags: { field: 'tags', split: '|' }, nums: { field: 'nums', split: ',', type: 'integer' } } as const satisfies NestedMapping;
    expect(run(m, { tags: ' a | b ||c ', nums: '1, 2,3' }).item).toEqual({ tags: ['a', 'b', 'c'], nums: [1, 2, 3] });
    expect(run(m, { tags: ['x'], nums: ['4'] }).item).toEqual({ tags: ['x'], nums: [4] });
    expect(run(m, { nums: '1,x' }).reasons.map((r) => r.field)).toEqual(['nums.1']);
  });

  it('uses defaults for missing, null and empty values, and trims when asked', () => {
    const m = { a: { field: 'a', default: 'A' }, b: { field: 'b', default: 0 }, c: { field: 'c', trim: true, default: 'C' } };
    expect(run(m, { a: '', b: null, c: '   ' }).item).toEqual({ a: 'A', b: 0, c: 'C' });
    expect(run(m, { a: 'x', b: 'y', c: ' z ' }).item).toEqual({ a: 'x', b: 'y', c: 'z' });
  });

  it('gives a typed field\'s default that type, once, and refuses at compile time a default the type cannot take', () => {
    const m = {
      n: { field: 'n', type: 'integer', default: '5' },
      d: { field: 'd', type: 'date', default: '2024-01-31' },
      g: { field: 'g', default: 'no' },
      l: { field: 'l', split: '|', type: 'integer', default: ['1', 2] },
      t: { template: '{a}', type: 'number', default: '1.5' },
    } as const satisfies NestedMapping;
    expect(run(m, {}, { g: 'boolean' }).item).toEqual({ n: 5, d: '2024-01-31T00:00:00.000Z', g: false, l: [1, 2], t: 1.5 });
    expect(() => compileMapping({ properties: { when: { field: 'w', type: 'date', default: 'yesterday' } } })).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^properties\.when\.default: expected a date .*found "yesterday"/), details: { path: 'properties.when.default' } }),
    );
    expect(() => compileMapping({ s: { template: '{a}', type: 'integer', default: 'x' } })).toThrow(/s\.default: expected a whole number \(the field's type is integer\), found "x"/);
    expect(() => compileMapping({ isGuest: { field: 'g', default: 'maybe' } }, { impliedTypes: { isGuest: 'boolean' } })).toThrow(/isGuest\.default/);
    expect(() => compileMapping({ tags: { field: 't', split: '|', default: 'none' } })).toThrow(/tags\.default: a field with "split" gives a list/);
  });

  it('rejects an object where a split field expects text (it has none to split), naming the field', () => {
    const { item, reasons } = run({ tags: { field: 'tags', split: '|' } }, { tags: { k: 1 } });
    expect(item).toEqual({});
    expect(reasons.map((r) => r.message)).toEqual(['tags (from source field "tags"): expected text to split at "|", or a list, found an object']);
  });

  it('refuses JSON text (type json) that would arrive changed: a key twice, a number no double holds, a lone surrogate', () => {
    const m = { j: { field: 'j', type: 'json' } } as const satisfies NestedMapping;
    for (const [text, problem] of [
      ['{"a":1,"a":2}', 'the key "a" appears twice'],
      ['{"x":1e400}', 'it would arrive as null'],
      ['["\\ud800"]', 'without the other half of its surrogate pair'],
    ] as const) {
      const { item, reasons } = run(m, { j: text });
      expect(item, text).toEqual({});
      expect(reasons.map((r) => [r.field, r.sourceField]), text).toEqual([['j', 'j']]);
      expect(reasons[0]!.message, text).toContain(problem);
    }
    expect(run(m, { j: '{"a":[1,{"a":2}],"n":12345678901234567890}' }).item).toEqual({ j: { a: [1, { a: 2 }], n: '12345678901234567890' } });
  });

  it('builds nested objects and leaves out a nested object with no values', () => {
    const m = { properties: { source: { id: 'id', at: { field: ['meta', 'ts'] } }, dept: 'dept' } };
    expect(run(m, { id: '1', meta: { ts: 5 } }).item).toEqual({ properties: { source: { id: '1', at: 5 } } });
    expect(run(m, { other: 1 }).item).toEqual({});
  });

  it('applies implied types when the mapping names none', () => {
    expect(run({ isGuest: 'guest' }, { guest: 'no' }, { isGuest: 'boolean' }).item).toEqual({ isGuest: false });
  });

  it('never evaluates names or values from the file as code', () => {
    const evil = '"]; globalThis.pwned = 1; //';
    const { item } = run({ [evil]: evil, x: { template: `{${evil}}` }, y: { const: '`${globalThis.pwned = 2}`' } }, { [evil]: 'v' });
    expect((globalThis as { pwned?: number }).pwned).toBeUndefined();
    expect(item).toEqual({ [evil]: 'v', x: 'v', y: '`${globalThis.pwned = 2}`' });
  });

  it('refuses broken templates and __proto__ with the path in the mapping', () => {
    expect(() => compileMapping({ properties: { full: { template: '{first' } } })).toThrow(MappingError);
    expect(() => compileMapping({ properties: { full: { template: '{first' } } })).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ path: 'properties.full' }) }),
    );
    expect(() => compileMapping(JSON.parse('{"__proto__": "x"}') as NestedMapping)).toThrow(/__proto__/);
  });
});
