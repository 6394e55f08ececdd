import { compareTs } from './records.js';

/**
 * Thread bookkeeping for one channel, bounded. Replies need no state to come after their root: a reply's
 * ts is always later than its root's, and a channel's messages are emitted in ts order (day files in
 * date order, each sorted by ts), so the root — even in an earlier day file — has already been emitted.
 * Each reply carries its root's reference (channel + thread_ts), again without state. The only state is
 * this set of recent roots, used to mark replies whose root is not in the export; past `maxRoots` the
 * oldest roots are forgotten and replies to them are simply not checked. A reply filed under an earlier
 * day than its root breaks the order; the mapper then asks only about roots no later day file can hold.
 */
export interface ThreadTracker {
  noteRoot(ts: string): void;
  /** True only when the root is known not to be in the export (never for forgotten roots). */
  isCertainlyMissing(rootTs: string): boolean;
}

export function createThreadTracker(maxRoots: number): ThreadTracker {
  const roots = new Set<string>();
  let forgottenUpTo: string | undefined;
  return {
    noteRoot(ts) {
      roots.add(ts);
      if (roots.size > maxRoots) {
        // A Set iterates in insertion order, and roots arrive in ts order: the first is the oldest.
        const oldest = roots.values().next().value as string;
        roots.delete(oldest);
        if (forgottenUpTo === undefined || compareTs(oldest, forgottenUpTo) > 0) forgottenUpTo = oldest;
      }
    },
    isCertainlyMissing(rootTs) {
      if (roots.has(rootTs)) return false;
      return forgottenUpTo === undefined || compareTs(rootTs, forgottenUpTo) > 0;
    },
  };
}
