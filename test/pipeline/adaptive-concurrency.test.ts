import { describe, expect, it } from 'vitest';
import { AdaptiveConcurrency } from '../../src/pipeline/import/adaptive-concurrency.js';

describe('AdaptiveConcurrency', () => {
  it('halves on new 429s (not below 1) and climbs back one step per calm round, up to the configured value', () => {
    const a = new AdaptiveConcurrency(8, 5);
    expect(a.afterUpload(5)).toBe(8);
    expect(a.afterUpload(9)).toBe(4);
    // The same count again is calm, not a new limit.
    expect(a.afterUpload(9)).toBe(4);
    expect(a.afterUpload(10)).toBe(2);
    expect(a.afterUpload(11)).toBe(1);
    expect(a.afterUpload(12)).toBe(1);
    expect(a.lowest).toBe(1);
    // One calm upload at concurrency 1 raises it to 2; then two calm uploads to 3, and so on.
    const steps = Array.from({ length: 1 + 2 + 3 + 4 + 5 + 6 + 7 + 3 }, () => a.afterUpload(12));
    expect(steps.at(-1)).toBe(8);
    expect(Math.max(...steps)).toBe(8);
    expect(steps.slice(0, 3)).toEqual([2, 2, 3]);
    expect(a.lowest).toBe(1);
  });
});
