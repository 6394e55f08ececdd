import { describe, expect, it } from 'vitest';
import { BAD, COERCERS } from '../../src/transform/coerce.js';
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
  it('takes a number, or 12 to 16 digits as text (a CSV cell); refuses texts that are likelier seconds or a year', () => {
    const date = (value: unknown) => COERCERS.date(value, [] as never, 'when', undefined);
    expect(date(1700000000000)).toBe('2023-11-14T22:13:20.000Z');
    expect(date('1700000000000')).toBe('2023-11-14T22:13:20.000Z');
    expect(date(' 1700000000123 ')).toBe('2023-11-14T22:13:20.123Z');
    expect(date('-100000000000')).toBe('1966-10-31T14:13:20.000Z');
    for (const text of ['1700000000', '2024', '17000000000000000', '1.7e12']) expect(date(text), text).toBe(BAD);
  });
});
