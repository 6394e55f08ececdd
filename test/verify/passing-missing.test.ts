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

  it('takes missing messages in more channels than a packed entry holds, the packed ones kept', () => {
    // A span of 4 channels stands for 2^21: after 100 messages in 4 channels, 100 in 9.
    const passing = new PassingMissing(4);
    const added = Array.from({ length: 200 }, (_, i) => ({ ordinal: (i * 7919) % 211, channel: `c${i % (i < 100 ? 4 : 9)}` }));
    for (const { ordinal, channel } of added) passing.add(ordinal, channel);
    const { ordinals, channelKeyAt } = passing.sorted();
    const expected = [...added].sort((a, b) => a.ordinal - b.ordinal);
    expect([...ordinals].map((ordinal, at) => ({ ordinal, channel: channelKeyAt(at) }))).toEqual(expected);
  });
});
