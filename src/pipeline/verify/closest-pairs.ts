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

/**
 * Hunks up to this many (missing × extra) candidates are searched whole. Past it (a channel of a bot whose
 * user was deleted is one hunk of every message, changed in `user`) the search is linear: a whole search
 * would hold and sort a candidate for every pair, and a hunk of a few thousand on each side ran verify out of
 * memory.
 */
const WHOLE_SEARCH_MAX = 10_000;

/** How far ahead of the last extra paired the linear search looks for each missing message. */
const WINDOW = 16;

/** `differences(i, j)`: the fields that differ, or undefined when the two cannot be one message (another type). */
export function closestPairs(missing: number, extra: number, differences: (i: number, j: number) => string[] | undefined): ClosePair[] {
  if (missing * extra > WHOLE_SEARCH_MAX) return pairsInOrder(missing, extra, differences);
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

/**
 * A big hunk, in order: each missing message is paired with the closest (fewest fields, then first) of the
 * next WINDOW extras after the last one paired; one with none there stays missing. Both sides keep their
 * order, as a hunk's messages do when each was changed where it stands.
 */
function pairsInOrder(missing: number, extra: number, differences: (i: number, j: number) => string[] | undefined): ClosePair[] {
  const pairs: ClosePair[] = [];
  let next = 0;
  for (let i = 0; i < missing && next < extra; i++) {
    let best: ClosePair | undefined;
    for (let j = next; j < Math.min(extra, next + WINDOW); j++) {
      const fields = differences(i, j);
      if (fields !== undefined && (best === undefined || fields.length < best.fields.length)) best = { i, j, fields };
    }
    if (best === undefined) continue;
    pairs.push(best);
    next = best.j + 1;
  }
  return pairs;
}
