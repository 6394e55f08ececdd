/**
 * Calls `work` on each item with up to `width` calls under way, and yields their results in the items'
 * order: reads that wait on the platform overlap, while the loop that folds their results sees them one
 * by one, as a plain loop would (so what it builds does not depend on which answer came first).
 *
 * A call that fails ends the iteration with its error when its turn comes; calls still under way then
 * run to their end with nobody waiting (their failures are caught here, not left unhandled), and no new
 * call starts. Stopping the loop early does the same.
 */
export async function* inOrderAhead<T, R>(items: Iterable<T>, width: number, work: (item: T) => Promise<R>): AsyncGenerator<R> {
  if (!(width >= 1)) throw new RangeError(`inOrderAhead: width must be at least 1, got ${width}`);
  const iterator = items[Symbol.iterator]();
  const ahead: Promise<R>[] = [];
  let exhausted = false;
  const fill = () => {
    while (!exhausted && ahead.length < width) {
      const next = iterator.next();
      if (next.done === true) exhausted = true;
      else ahead.push(started(work, next.value));
    }
  };
  try {
    for (fill(); ahead.length > 0; fill()) yield await ahead.shift()!;
  } finally {
    if (!exhausted) iterator.return?.();
  }
}

/** One call, its failure marked as handled until its turn comes (where it is awaited and thrown). */
function started<T, R>(work: (item: T) => Promise<R>, item: T): Promise<R> {
  const call = Promise.resolve().then(() => work(item));
  call.catch(() => undefined);
  return call;
}
