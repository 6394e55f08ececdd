import { describe, expect, it } from 'vitest';
import { inOrderAhead } from '../../src/shared/in-order-ahead.js';

/** A call the test settles by hand, and a log of which calls have started. */
function controlledWork() {
  const started: number[] = [];
  const settle = new Map<number, { resolve(value: string): void; reject(error: Error): void }>();
  let running = 0;
  let mostRunning = 0;
  const work = (n: number) =>
    new Promise<string>((resolve, reject) => {
      started.push(n);
      running++;
      mostRunning = Math.max(mostRunning, running);
      const done = () => running--;
      settle.set(n, {
        resolve: (v) => (done(), resolve(v)),
        reject: (e) => (done(), reject(e)),
      });
    });
  return { work, started, settle, mostRunning: () => mostRunning };
}

/** Lets every pending callback run (the calls here settle only when the test says so). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('inOrderAhead', () => {
  it('keeps up to `width` calls under way and yields the results in the order of the items, whatever order they end in', async () => {
    const { work, started, settle, mostRunning } = controlledWork();
    const results: string[] = [];
    const consumed = (async () => {
      for await (const r of inOrderAhead([0, 1, 2, 3, 4, 5], 3, work)) results.push(r);
    })();
    await turn();
    expect(started).toEqual([0, 1, 2]);
    // The later calls end first: nothing comes out until the first one has.
    settle.get(2)!.resolve('c');
    settle.get(1)!.resolve('b');
    await turn();
    expect(results).toEqual([]);
    expect(started).toEqual([0, 1, 2]);
    settle.get(0)!.resolve('a');
    await turn();
    expect(results).toEqual(['a', 'b', 'c']);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    for (const [n, v] of [[5, 'f'], [3, 'd'], [4, 'e']] as const) settle.get(n)!.resolve(v);
    await consumed;
    expect(results).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(mostRunning()).toBe(3);
  });

  it('with width 1 is a plain loop: one call at a time', async () => {
    const order: string[] = [];
    const work = async (n: number) => {
      order.push(`start ${n}`);
      await turn();
      order.push(`end ${n}`);
      return n * 10;
    };
    const results: number[] = [];
    for await (const r of inOrderAhead([1, 2, 3], 1, work)) results.push(r);
    expect(results).toEqual([10, 20, 30]);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  });

  it('ends with a failed call’s error at its turn, starts no call after it, and leaves no rejection unhandled', async () => {
    const { work, started, settle } = controlledWork();
    const results: string[] = [];
    const consumed = (async () => {
      for await (const r of inOrderAhead([0, 1, 2, 3, 4, 5], 2, work)) results.push(r);
    })();
    await turn();
    // The second call fails before the first ends: its error waits for its turn.
    settle.get(1)!.reject(new Error('thread 1 could not be read'));
    await turn();
    settle.get(0)!.resolve('a');
    await expect(consumed).rejects.toThrow('thread 1 could not be read');
    expect(results).toEqual(['a']);
    expect(started).toEqual([0, 1, 2]);
    // The call already under way when the loop ended fails with nobody waiting: no unhandled rejection.
    settle.get(2)!.reject(new Error('ignored'));
    await turn();
    expect(started).toEqual([0, 1, 2]);
  });

  it('starts no new call once the loop stops early, and closes the items', async () => {
    let closed = false;
    function* items() {
      try {
        for (let n = 0; n < 100; n++) yield n;
      } finally {
        closed = true;
      }
    }
    const started: number[] = [];
    for await (const r of inOrderAhead(items(), 4, async (n) => (started.push(n), n))) if (r === 1) break;
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(closed).toBe(true);
  });

  it('refuses a width below 1', async () => {
    await expect(inOrderAhead([1], 0, async (n) => n).next()).rejects.toThrow(RangeError);
  });
});
