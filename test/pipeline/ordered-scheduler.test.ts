import { describe, expect, it } from 'vitest';
import { OrderedScheduler } from '../../src/pipeline/import/ordered-scheduler.js';

/** Tasks resolve when the test says so, so overlap is observed without timing. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('OrderedScheduler', () => {
  it('never overlaps chunks that share an order key, and runs disjoint ones together', async () => {
    const s = new OrderedScheduler(4);
    const started: string[] = [];
    const gates = { a1: gate(), b1: gate(), a2: gate() };
    s.schedule(['A'], async () => { started.push('a1'); await gates.a1.promise; });
    s.schedule(['B'], async () => { started.push('b1'); await gates.b1.promise; });
    s.schedule(['A', 'B'], async () => { started.push('a2'); await gates.a2.promise; });
    await tick();
    expect(started).toEqual(['a1', 'b1']);
    gates.a1.open();
    await tick();
    expect(started).toEqual(['a1', 'b1']); // still waits for B
    gates.b1.open();
    await tick(); await tick();
    expect(started).toEqual(['a1', 'b1', 'a2']);
    gates.a2.open();
    await s.drain();
  });

  it('bounds concurrency and reports the first failure', async () => {
    const s = new OrderedScheduler(2);
    let running = 0;
    let peak = 0;
    for (let i = 0; i < 6; i++)
      s.schedule([], async () => {
        running++; peak = Math.max(peak, running);
        await tick();
        running--;
        if (i === 3) throw new Error('chunk 3 failed');
      });
    await expect(s.drain()).rejects.toThrow('chunk 3 failed');
    expect(peak).toBe(2);
  });

  it('starts no chunk after one failed: the stage stops without uploading (and waiting for) more', async () => {
    const s = new OrderedScheduler(1);
    const started: number[] = [];
    const first = gate();
    s.schedule([], async () => { started.push(0); await first.promise; throw new Error('job 0 deadline'); });
    for (let i = 1; i < 4; i++) s.schedule([], async () => { started.push(i); });
    await tick();
    expect(started).toEqual([0]);
    first.open();
    await expect(s.drain()).rejects.toThrow('job 0 deadline');
    expect(started).toEqual([0]);
  });
});
