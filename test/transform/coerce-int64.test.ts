import { describe, expect, it } from 'vitest';
import { BAD, COERCERS } from '../../src/transform/coerce.js';
import type { Reason } from '../../src/transform/types.js';

describe('integers beyond 2^53 read from JSON sources (as their exact text)', () => {
  it('type string keeps the exact digits; type integer refuses them, saying why, and never rounds', () => {
    const reasons: Reason[] = [];
    expect(COERCERS.string('9007199254740993', reasons, 'properties.id', 'id')).toBe('9007199254740993');
    expect(COERCERS.integer('9007199254740993', reasons, 'properties.n', 'n')).toBe(BAD);
    expect(reasons).toHaveLength(1);
    expect(reasons[0]!.message).toContain('within ±9007199254740991');
    expect(reasons[0]!.message).toContain('type string');
    expect(COERCERS.integer('9007199254740991', [], 'n', 'n')).toBe(9007199254740991);
  });

  it('type json keeps them exact inside JSON text, as numbers (bigints, written back as bare digits)', () => {
    expect(COERCERS.json('{"ids":[1100000000000000001,1100000000000000002]}', [], 'properties.raw', 'raw')).toEqual({ ids: [1100000000000000001n, 1100000000000000002n] });
  });

  it('a bigint (an integer beyond 2^53 of a JSON source) is taken and refused as its digits were', () => {
    for (const type of ['string', 'number', 'integer', 'boolean', 'date', 'json'] as const) {
      const asText: Reason[] = [];
      const asBigint: Reason[] = [];
      const fromText = COERCERS[type]('9007199254740993', asText, 'properties.n', 'n');
      const fromBigint = COERCERS[type](9007199254740993n, asBigint, 'properties.n', 'n');
      if (type === 'json') expect(fromBigint).toBe(9007199254740993n);
      else expect(fromBigint, type).toEqual(fromText);
      expect(asBigint, type).toEqual(asText);
    }
  });
});

describe('number and integer texts are never silently changed (a CSV cell)', () => {
  it('type number refuses a non-zero text that would become 0 and one beyond ±1.8e308, naming the range', () => {
    for (const [text, arrives] of [['1e-400', '0'], ['-0.1e-330', '0'], ['1e400', 'null'], ['1'.padEnd(400, '0'), 'null']] as const) {
      const reasons: Reason[] = [];
      expect(COERCERS.number(text, reasons, 'properties.n', 'n'), text).toBe(BAD);
      expect(reasons.map((r) => [r.field, r.sourceField, r.found.slice(0, 8)]), text).toEqual([['properties.n', 'n', JSON.stringify(text).slice(0, 8)]]);
      expect(reasons[0]!.message, text).toContain(`±1.8e308 down to 5e-324; this one would arrive as ${arrives}`);
    }
    for (const [text, n] of [['0', 0], ['-0.0e-999', -0], ['0e400', 0], ['5e-324', 5e-324], ['1.5e308', 1.5e308], ['-1.5', -1.5]] as const)
      expect(COERCERS.number(text, [], 'n', 'n'), text).toBe(n);
  });

  it('type number refuses a whole number a double would hold as another one (a spreadsheet id of 17 digits), naming type string', () => {
    for (const text of ['9007199254740993', '12345678901234567', '-12345678901234567.0', '+98765432109876543210']) {
      const reasons: Reason[] = [];
      expect(COERCERS.number(text, reasons, 'properties.n', 'n'), text).toBe(BAD);
      expect(reasons.map((r) => r.message), text).toEqual([
        `properties.n (from source field "n"): expected a whole number a double holds (within ±9007199254740991, or one such as 100000000000000000000 that a double holds exactly; this one would arrive as ${String(Number(text))}): map this field with type string to keep its digits, found ${JSON.stringify(text)}`,
      ]);
    }
    expect(COERCERS.number(12345678901234567n, [], 'n', 'n')).toBe(BAD);
    // Whole numbers a double holds, and fractions and exponents, which round to the nearest double as any float does.
    for (const [text, n] of [['9007199254740992', 2 ** 53], ['1e20', 1e20], ['100000000000000000000', 1e20], ['-9007199254740991', -9007199254740991], ['0.1', 0.1], ['12345678901234567.5', 12345678901234568], ['1.5e308', 1.5e308], ['12345678901234567e0', 12345678901234568]] as const)
      expect(COERCERS.number(text, [], 'n', 'n'), text).toBe(n);
  });

  it('type integer takes a text only when it denotes a whole number itself, never through rounding', () => {
    const integer = (text: string | number) => {
      const reasons: Reason[] = [];
      return { value: COERCERS.integer(text, reasons, 'properties.i', 'i'), reasons };
    };
    for (const text of ['1.00000000000000001', '0.99999999999999999', '-2.000000000000000001', '4.5', '15e-1', '1e-400']) {
      const { value, reasons } = integer(text);
      expect(value, text).toBe(BAD);
      expect(reasons.map((r) => [r.field, r.expected, r.found]), text).toEqual([['properties.i', 'a whole number', JSON.stringify(text)]]);
    }
    // A text that is a whole number in another notation stays one (as before).
    for (const [text, n] of [['42', 42], [' -7 ', -7], ['1.0', 1], ['1e3', 1000], ['150e-1', 15], ['-0', 0], ['0.000e5', 0], ['9007199254740991', 9007199254740991], ['900719925474099.1e1', 9007199254740991]] as const)
      expect(integer(text).value, text).toBe(n);
    // Beyond 2^53: refused, never rounded, whatever the notation.
    // JSON numbers such as 1e20 arrive as doubles: whole, but beyond the safe range too.
    for (const text of ['9007199254740992', '9007199254740993', '1e20', '9.007199254740993e15', '-1e400', 1e20, -(2 ** 60)]) {
      const { value, reasons } = integer(text);
      expect(value, String(text)).toBe(BAD);
      expect(reasons[0]!.message, String(text)).toContain('within ±9007199254740991');
    }
  });
});
