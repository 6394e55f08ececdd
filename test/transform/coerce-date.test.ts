import { describe, expect, it } from 'vitest';
import { BAD, COERCERS } from '../../src/transform/coerce.js';
import type { Reason } from '../../src/transform/types.js';
import { rng } from '../helpers/rng.js';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('date coercion of UTC texts', () => {
  it('gives what Date gives for texts with seconds and 0 to 3 fraction digits, and refuses days and times that do not exist', () => {
    const random = rng(5);
    const pick = (n: number) => Math.floor(random() * n);
    for (let n = 0; n < 5000; n++) {
      const fraction = ['', '.5', '.05', '.123', '.000'][pick(5)]!;
      const text = `${pad([1970, 2000, 2023, 2024, 2100, 1900, 9999][pick(7)]!, 4)}-${pad(pick(14), 2)}-${pad(pick(33), 2)}T${pad(pick(26), 2)}:${pad(pick(62), 2)}:${pad(pick(62), 2)}${fraction}Z`;
      const reasons: unknown[] = [];
      const result = COERCERS.date(text, reasons as never, 'when', undefined);
      const date = new Date(text);
      const exists = Number.isFinite(date.getTime()) && date.getUTCDate() === Number(text.slice(8, 10));
      if (exists) expect(result, text).toBe(date.toISOString());
      else expect(result, text).toBe(BAD);
    }
  });
});

describe('date coercion of epoch milliseconds', () => {
  it('takes a number, or 12 or 13 digits as text (a CSV cell); refuses texts that are likelier seconds, a year or microseconds', () => {
    const date = (value: unknown) => COERCERS.date(value, [] as never, 'when', undefined);
    expect(date(1700000000000)).toBe('2023-11-14T22:13:20.000Z');
    expect(date('1700000000000')).toBe('2023-11-14T22:13:20.000Z');
    expect(date(' 1700000000123 ')).toBe('2023-11-14T22:13:20.123Z');
    expect(date('-100000000000')).toBe('1966-10-31T14:13:20.000Z');
    expect(date('9999999999999')).toBe('2286-11-20T17:46:39.999Z');
    for (const text of ['1700000000', '2024', '17000000000000000', '1.7e12', '1700000000123456', '999999999999999', '10000000000000']) expect(date(text), text).toBe(BAD);
  });

  it('refuses JSON numbers of fewer than 12 digits as it refuses such texts: seconds or a year, not a time in January 1970', () => {
    const reasons: Reason[] = [];
    for (const n of [1700000000, 2024, 0, -5, 17000000000000000]) expect(COERCERS.date(n, reasons, 'when', 't'), String(n)).toBe(BAD);
    expect(reasons[0]!.message).toBe('when (from source field "t"): expected a date (ISO 8601, e.g. 2024-01-31 or 2024-01-31T12:00:00Z; or epoch milliseconds: a whole number of 12 or 13 digits, as a number or as text; not epoch seconds or microseconds), found number 1700000000');
    expect(COERCERS.date(-100000000000, [], 'when', undefined)).toBe('1966-10-31T14:13:20.000Z');
  });
});

describe('date coercion never cuts digits', () => {
  const date = (value: unknown) => {
    const reasons: Reason[] = [];
    return { value: COERCERS.date(value, reasons, 'properties.d', 'd'), reasons };
  };

  it('keeps fraction digits past milliseconds in the UTC text, converting the zone as for any time', () => {
    expect(date('2024-01-31T12:00:00.123456Z').value).toBe('2024-01-31T12:00:00.123456Z');
    expect(date('2024-12-31T23:59:59.9999+01:00').value).toBe('2024-12-31T22:59:59.9999Z');
    expect(date('2024-01-31 12:00:00.000000001-0530').value).toBe('2024-01-31T17:30:00.000000001Z');
    expect(date('1969-12-31T23:59:59.9995Z').value).toBe('1969-12-31T23:59:59.9995Z');
    // Trailing zeros past milliseconds say nothing: the millisecond form, as before.
    expect(date('2024-01-31T12:00:00.123000Z').value).toBe('2024-01-31T12:00:00.123Z');
    expect(date('2024-02-30T12:00:00.123456Z').value).toBe(BAD);
  });

  it('refuses epoch milliseconds with a fraction (a Date would cut it)', () => {
    const { value, reasons } = date(1700000000000.5);
    expect(value).toBe(BAD);
    expect(reasons.map((r) => [r.field, r.sourceField, r.found])).toEqual([['properties.d', 'd', 'number 1700000000000.5']]);
    expect(reasons[0]!.expected).toContain('epoch milliseconds: a whole number');
  });
});
