import { describe, expect, it } from 'vitest';
import { TokenExtras } from '../../src/pipeline/verify/token-extras.js';

describe('TokenExtras', () => {
  it('takes the first left in the missing message\'s own channel, else the first left anywhere', () => {
    const extras = new TokenExtras();
    for (const [channelKey, index] of [['b', 0], ['a', 1], ['b', 2], ['a', 3]] as const) extras.add('t', { channelKey, index });
    const taken = [extras.take('t', 'a'), extras.take('t', 'c'), extras.take('t', 'a'), extras.take('t', 'a'), extras.take('t', 'a'), extras.take('x', 'a')];
    expect(taken.map((x) => x && `${x.channelKey}${x.index}`)).toEqual(['a1', 'b0', 'a3', 'b2', undefined, undefined]);
  });

  it('a channel\'s missing messages all found in another channel (re-keyed on the platform) cost steps in proportion to their number', () => {
    const extras = new TokenExtras();
    const n = 50_000;
    for (let j = 0; j < n; j++) extras.add(`t${j % 20}`, { channelKey: 'b', index: j });
    for (let i = 0; i < n; i++) expect(extras.take(`t${i % 20}`, 'a')?.index).toBe(i);
    expect(extras.steps).toBeLessThanOrEqual(2 * n);
  });
});
