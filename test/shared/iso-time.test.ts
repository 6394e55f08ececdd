import { describe, expect, it } from 'vitest';
import { isoOfEpochMs } from '../../src/shared/iso-time.js';
import { seededRandom } from '../../src/shared/seeded-random.js';

const viaDate = (ms: number) => new Date(ms).toISOString();
const LAST_FOUR_DIGIT_YEAR_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

describe('isoOfEpochMs', () => {
  it('gives what toISOString gives at the calendar edges', () => {
    const edges = [
      0,
      1,
      86_399_999,
      86_400_000,
      Date.UTC(1972, 1, 29, 12),
      Date.UTC(1972, 2, 1),
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2400, 1, 29),
      LAST_FOUR_DIGIT_YEAR_MS,
    ];
    for (const ms of edges) expect(isoOfEpochMs(ms)).toBe(viaDate(ms));
  });

  it('hands what it does not format to Date: expanded years, times before 1970, fractions of a millisecond', () => {
    for (const ms of [LAST_FOUR_DIGIT_YEAR_MS + 1, 8.64e15, -1, -86_400_001, Date.UTC(-50, 0, 1), 1.5, 1_600_000_000_000.25]) expect(isoOfEpochMs(ms)).toBe(viaDate(ms));
    expect(isoOfEpochMs(LAST_FOUR_DIGIT_YEAR_MS + 1)).toBe('+010000-01-01T00:00:00.000Z');
    expect(() => isoOfEpochMs(Number.NaN)).toThrow(RangeError);
    expect(() => isoOfEpochMs(8.64e15 + 1)).toThrow(RangeError);
  });

  it('agrees with toISOString on 200,000 random times, in and out of order (the cached day must not leak)', () => {
    const random = seededRandom(12);
    for (let i = 0; i < 200_000; i++) {
      // Half spread over the whole range, half close to the previous draw (the same day, or the next).
      const ms = i % 2 === 0 ? Math.floor(random() * (LAST_FOUR_DIGIT_YEAR_MS + 1)) : Math.floor(random() * 2 * 86_400_000) + Date.UTC(2024, 0, 1);
      const got = isoOfEpochMs(ms);
      if (got !== viaDate(ms)) expect({ ms, got }).toEqual({ ms, got: viaDate(ms) });
    }
  });
});
