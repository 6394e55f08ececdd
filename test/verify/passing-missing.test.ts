import { describe, expect, it } from 'vitest';
import { PassingMissing } from '../../src/pipeline/verify/passing-missing.js';

describe('missing messages named as the second read passes them', () => {
  it('gives the ordinals in order, each with its channel, past the first growth of its array', () => {
    const passing = new PassingMissing();
    const added = Array.from({ length: 3000 }, (_, i) => ({ ordinal: (i * 7919) % 3001, channel: `c${i % 5}` }));
    for (const { ordinal, channel } of added) passing.add(ordinal, channel);
    expect(passing.size).toBe(3000);
    const { ordinals, channelKeyAt } = passing.sorted();
    const expected = [...added].sort((a, b) => a.ordinal - b.ordinal);
    expect([...ordinals]).toEqual(expected.map((a) => a.ordinal));
    expect(expected.map((_, at) => channelKeyAt(at))).toEqual(expected.map((a) => a.channel));
  });
});
