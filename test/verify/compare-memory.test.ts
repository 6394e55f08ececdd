import { describe, expect, it } from 'vitest';
import { heapUsed } from '../helpers/heap-used.js';
import { compareMessages } from '../../src/pipeline/verify/compare-messages.js';
import { ExpectedMessages, Interner } from '../../src/pipeline/verify/message-columns.js';

const MISSING = 200_000;

describe('the token comparison of messages the platform lacks', () => {
  it('holds a few bytes a missing message, not an object each, and still names every one', () => {
    // One channel of most of them (an import stopped in it) and three small ones; the platform holds none.
    const expected = new Map(['big', 'c1', 'c2', 'c3'].map((key) => [key, new ExpectedMessages()]));
    for (let i = 0; i < MISSING; i++) expected.get(i % 10 === 0 ? `c${1 + (i % 3)}` : 'big')!.push({ author: 1 + (i % 20), type: 1, length: 30 + (i % 50) }, i);
    const sides = { expected, platform: new Map(), authors: new Interner(), types: new Interner() };
    const before = heapUsed();
    const comparison = compareMessages(sides);
    // Before: about 70 bytes of heap a missing message (a finding object, hunk and region arrays of numbers).
    // Now typed arrays, outside the heap: a hunk's positions and paired flags, a region's ordinals.
    expect((heapUsed() - before) / MISSING).toBeLessThan(4);
    let missing = 0;
    for (const f of comparison.findings()) if (f.kind === 'missing') missing++;
    expect(missing).toBe(MISSING);
    expect(comparison.regions.reduce((n, r) => n + r.ordinals.length, 0)).toBe(MISSING);
  }, 30_000);
});
