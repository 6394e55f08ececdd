/**
 * Appends every item to `target`. `target.push(...items)` passes each item as an argument, and past about
 * 125,000 of them (a verification of an import stopped half way has millions of differences) the call
 * overflows the stack: RangeError, exit 1.
 */
export function appendAll<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item);
}
