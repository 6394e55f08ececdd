import { describe, expect, it } from 'vitest';
import { longestIncreasing } from '../../src/pipeline/verify/verify-threads.js';

describe('longestIncreasing (which replies of a thread are in the source order)', () => {
  it('keeps the longest run in order: a reply moved to the end is the one left out', () => {
    expect([...longestIncreasing([2, 0, 1])].sort()).toEqual([1, 2]);
    expect([...longestIncreasing([0, 1, 2, 3])].sort()).toEqual([0, 1, 2, 3]);
    expect([...longestIncreasing([3, 0, 1, 2, 9, 4])].sort()).toEqual([1, 2, 3, 5]);
    expect(longestIncreasing([]).size).toBe(0);
    expect(longestIncreasing([1, 0]).size).toBe(1);
  });
});
