import { describe, expect, it } from 'vitest';
import { addInt64, int64, int64Mod, isInt64, parseInt64 } from '../../src/shared/int64.js';
import { parseJsonExact, parseJsonNoting, sameJsonValue, stringifyJson } from '../../src/shared/lossless-json.js';

const TWO_53 = 9007199254740992n;

describe('parseJsonExact', () => {
  it('keeps integers beyond 2^53 exact: 2^53 and 2^53+1 stay two values, negative too', () => {
    expect(parseJsonExact('[9007199254740992,9007199254740993,-9007199254740993]', 'bigint')).toEqual([TWO_53, TWO_53 + 1n, -(TWO_53 + 1n)]);
    expect(parseJsonExact('{"a":9007199254740992,"b":9007199254740993}', 'text')).toEqual({ a: '9007199254740992', b: '9007199254740993' });
    expect(parseJsonExact('{"id":1100000000000000001}', 'text')).toEqual({ id: '1100000000000000001' });
  });

  it('gives numbers for safe integers, fractions and exponents, as JSON.parse does', () => {
    const text = '{"safe":9007199254740991,"long16":1000000000000000,"frac":12345678901234567.5,"exp":1234567890123456789e2,"neg0":-0,"small":[1,-2,3.5e-3]}';
    expect(parseJsonExact(text, 'bigint')).toEqual(JSON.parse(text));
    expect(Object.is((parseJsonExact(text, 'bigint') as { neg0: number }).neg0, -0)).toBe(true);
  });

  it('leaves digits inside strings alone, escapes included, and reads nested values', () => {
    const text = ' { "s" : "x:12345678901234567890, \\"q\\" \\u00e9\\\\" , "n" : { "deep" : [ [ 12345678901234567890 ] , true , false , null ] } , "e": {}, "a": [] } ';
    expect(parseJsonExact(text, 'bigint')).toEqual({ s: 'x:12345678901234567890, "q" é\\', n: { deep: [[12345678901234567890n], true, false, null] }, e: {}, a: [] });
  });

  it('finds long integers wherever a number may start: a bare top-level number, after whitespace and newlines', () => {
    expect(parseJsonExact(' -9007199254740993 ', 'bigint')).toBe(-(TWO_53 + 1n));
    expect(parseJsonExact('{\n  "a": 9007199254740993,\n  "b": [\n    9007199254740995\n  ]\n}', 'text')).toEqual({ a: '9007199254740993', b: ['9007199254740995'] });
  });

  it('keeps "__proto__" an own property and the last of duplicate keys, as JSON.parse does', () => {
    const value = parseJsonExact('{"__proto__":{"x":1},"k":1,"k":99999999999999999}', 'text') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'k']);
    expect(value.k).toBe('99999999999999999');
  });

  it('finds a rounded integer at any depth, in arrays of objects and objects of arrays', () => {
    const deep = `${'[{"a":'.repeat(200)}12345678901234567891${'}]'.repeat(200)}`;
    let value = parseJsonExact(deep, 'text');
    for (let i = 0; i < 200; i++) value = (value as [{ a: unknown }])[0].a;
    expect(value).toBe('12345678901234567891');
    expect(parseJsonExact('[1,{"x":[2,{"y":[3,-12345678901234567891]}]}]', 'bigint')).toEqual([1, { x: [2, { y: [3, -12345678901234567891n] }] }]);
    expect(parseJsonExact(`{"big":${'9'.repeat(400)}}`, 'text')).toEqual({ big: '9'.repeat(400) });
  });

  it('tells when a number may be beyond a double (a zero or an infinity came out), anywhere in the value', () => {
    const doubtful = (text: string) => parseJsonNoting(text, 'text').mayHoldExtremeNumber;
    for (const text of ['{"a":1e400}', '[[{"b":1e-400}]]', '{"z":0}', '-0', `{"f":0.${'0'.repeat(400)}1}`]) expect(doubtful(text), text).toBe(true);
    for (const text of ['{"a":1,"b":"0","c":"1e400"}', '[1.5,-2,3e-300]', '"0"', `{"id":${'1'.repeat(30)}}`]) expect(doubtful(text), text).toBe(false);
  });

  it('refuses what JSON.parse refuses, with its error, on either path', () => {
    for (const bad of ['{"a":12345678901234567890', '{"a":012345678901234567}', '[1,]', '{"a":1}x'])
      expect(() => parseJsonExact(bad, 'text')).toThrow(SyntaxError);
  });
});

describe('stringifyJson', () => {
  it('writes bigints as bare digits, and everything else as JSON.stringify does', () => {
    const value = { id: TWO_53 + 1n, list: [-(TWO_53 + 3n), 1, 'x', null, undefined], skip: undefined, when: new Date(0), nested: { n: 2n ** 63n - 1n } };
    expect(stringifyJson(value)).toBe(
      '{"id":9007199254740993,"list":[-9007199254740995,1,"x",null,null],"when":"1970-01-01T00:00:00.000Z","nested":{"n":9223372036854775807}}',
    );
    const plain = { a: [1, { b: 'c' }], d: {}, e: [] };
    expect(stringifyJson({ ...plain, big: 1n }, 2)).toBe(JSON.stringify({ ...plain, big: 1 }, null, 2));
    expect(stringifyJson(plain)).toBe(JSON.stringify(plain));
  });

  it('round-trips with parseJsonExact', () => {
    const value = { ids: [TWO_53 + 1n, TWO_53 + 2n, 42], text: '12345678901234567890' };
    expect(parseJsonExact(stringifyJson(value), 'bigint')).toEqual(value);
  });
});

describe('Int64', () => {
  it('is a number while safe and a bigint beyond, one form per value', () => {
    expect(int64(5n)).toBe(5);
    expect(int64(TWO_53 + 1n)).toBe(TWO_53 + 1n);
    expect(parseInt64('9007199254740993')).toBe(TWO_53 + 1n);
    expect(parseInt64('42')).toBe(42);
    for (const bad of ['', '-', '01', '1.0', '9223372036854775808', '1e3']) expect(parseInt64(bad)).toBeUndefined();
    expect(isInt64(2n ** 63n)).toBe(false);
    expect(isInt64(2 ** 53)).toBe(false);
    expect(addInt64(Number.MAX_SAFE_INTEGER, 2)).toBe(TWO_53 + 1n);
    expect(int64Mod(TWO_53 + 1n, 8)).toBe(1);
    expect(int64Mod(-1, 8)).toBe(7);
  });
});

describe('sameJsonValue', () => {
  it('compares values as they travel: -0 is 0, a double beyond 2^53 equals the exact integer it is written as', () => {
    expect(sameJsonValue(-0, 0)).toBe(true);
    expect(sameJsonValue({ geo: { lat: -0 } }, { geo: { lat: 0 } })).toBe(true);
    expect(sameJsonValue(Number('123456789012345678'), 123456789012345680n)).toBe(true);
    expect(sameJsonValue(Number('9007199254740993'), 9007199254740992n)).toBe(true);
    expect(sameJsonValue(2 ** 60, 1152921504606847000n)).toBe(true); // JSON writes 2^60's shortest digits
    expect(sameJsonValue(1e20, 100000000000000000000n)).toBe(true);
    expect(sameJsonValue({ b: [1, { n: 1e20 }], a: 'x' }, { a: 'x', b: [1, { n: 100000000000000000000n }] })).toBe(true);
    expect(sameJsonValue({ a: 1, u: undefined }, { a: 1 })).toBe(true);
    expect(sameJsonValue([undefined], [null])).toBe(true);
  });

  it('still tells real differences apart', () => {
    expect(sameJsonValue(1, 2)).toBe(false);
    expect(sameJsonValue(1, '1')).toBe(false);
    expect(sameJsonValue(1n, '1')).toBe(false);
    expect(sameJsonValue(9007199254740992, 9007199254740993n)).toBe(false);
    expect(sameJsonValue(123456789012345680n, 123456789012345681n)).toBe(false);
    expect(sameJsonValue(1e20, '100000000000000000000')).toBe(false);
    expect(sameJsonValue({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameJsonValue({ a: [0] }, { a: 0 })).toBe(false);
    expect(sameJsonValue(0, null)).toBe(false);
    expect(sameJsonValue(0, undefined)).toBe(false);
    expect(sameJsonValue([1, 2], [1, 2, 3])).toBe(false);
  });
});
