/**
 * How a hunk's missing and extra messages are paired as `changed` (verify-messages: by token, and again by
 * whole content): the closest pairs first, fewest fields differing, then nearest in the hunk, then in order.
 * When a message next to a changed one was deleted, the platform's message is named as the one it still
 * mostly is, not as the first of the two.
 */
export interface ClosePair {
  /** Index into the missing side. */
  i: number;
  /** Index into the extra side. */
  j: number;
  fields: string[];
}

/** `differences(i, j)`: the fields that differ, or undefined when the two cannot be one message (another type). */
export function closestPairs(missing: number, extra: number, differences: (i: number, j: number) => string[] | undefined): ClosePair[] {
  const candidates: ClosePair[] = [];
  for (let i = 0; i < missing; i++)
    for (let j = 0; j < extra; j++) {
      const fields = differences(i, j);
      if (fields !== undefined) candidates.push({ i, j, fields });
    }
  candidates.sort((a, b) => a.fields.length - b.fields.length || Math.abs(a.i - a.j) - Math.abs(b.i - b.j) || a.i - b.i || a.j - b.j);
  const [usedI, usedJ] = [new Set<number>(), new Set<number>()];
  const pairs: ClosePair[] = [];
  for (const pair of candidates) {
    if (usedI.has(pair.i) || usedJ.has(pair.j)) continue;
    usedI.add(pair.i);
    usedJ.add(pair.j);
    pairs.push(pair);
  }
  return pairs;
}
