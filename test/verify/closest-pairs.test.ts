import { describe, expect, it } from 'vitest';
import { closestPairs } from '../../src/pipeline/verify/closest-pairs.js';

describe('closestPairs', () => {
  it('a small hunk: the closest pairs first (fewest fields, then nearest)', () => {
    const fields = [[['user', 'body'], ['user']], [['body'], undefined]] as const;
    expect(closestPairs(2, 2, (i, j) => fields[i]![j] as string[] | undefined).map((p) => [p.i, p.j])).toEqual([[0, 1], [1, 0]]);
  });

  it('a hunk of thousands on each side (a bot channel whose user was deleted: every message changed in user) costs work in proportion to its size, not its square', () => {
    let asked = 0;
    const n = 3000;
    const pairs = closestPairs(n, n, (i, j) => {
      asked++;
      return i === j ? ['user'] : undefined;
    });
    expect(pairs.map((p) => p.i - p.j).filter((d) => d !== 0)).toEqual([]);
    expect(pairs).toHaveLength(n);
    expect(asked).toBeLessThanOrEqual(n * 64);
  });
});
