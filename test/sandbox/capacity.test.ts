import { describe, expect, it } from 'vitest';
import { BURST_MS, ProcessingLine } from '../../src/sandbox/capacity.js';

describe('the processing line (--items-per-second)', () => {
  it('processes jobs back to back at N items per second overall, whoever sent them', () => {
    const line = new ProcessingLine(5000);
    // Four 5,000-item files arrive within 30 ms: processed one after the other, a second each.
    const slots = [0, 10, 20, 30].map((at) => line.reserve(5000, 100_000 + at));
    expect(slots.map((s) => s.endAt - s.startAt)).toEqual([1000, 1000, 1000, 1000]);
    for (let i = 1; i < slots.length; i++) expect(slots[i]!.startAt).toBe(slots[i - 1]!.endAt);
  });

  it('overlaps receiving the next file with processing the one before: no gap while work is queued', () => {
    const line = new ProcessingLine(5000);
    const first = line.reserve(5000, 0);
    // The next file arrives (received, validated) while the first is processed: it starts when that one ends.
    const second = line.reserve(5000, 600);
    expect(second.startAt).toBe(first.endAt);
    expect(second.endAt).toBe(2000 - BURST_MS);
  });

  it('keeps no credit for idle time beyond a small burst', () => {
    const line = new ProcessingLine(1000);
    line.reserve(1000, 0);
    // Idle from 1 s to 61 s: a file arriving then gets at most BURST_MS of head start, not a minute.
    const late = line.reserve(1000, 61_000);
    expect(late.startAt).toBe(61_000 - BURST_MS);
    expect(late.endAt).toBe(62_000 - BURST_MS);
    // A short pause is credited only as far as it went.
    const soon = line.reserve(10, late.endAt + 20);
    expect(soon.startAt).toBe(late.endAt);
  });
});
