import { describe, expect, it } from 'vitest';
import { ByteCopier } from '../../src/shared/byte-copy.js';

describe('ByteCopier', () => {
  it('copies every length and alignment exactly, between pooled slices too, leaving the bytes around untouched', () => {
    // Small Buffer.from()s share one pool: a view made for the wrong slice would copy the wrong bytes.
    const sources = [Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37 + 11) & 0xff)), Buffer.from('x'.repeat(40) + 'é🎉'.repeat(20))];
    const copier = new ByteCopier();
    const targets = [Buffer.alloc(400, 0xaa), Buffer.from('y'.repeat(400))];
    for (let length = 0; length < 70; length++)
      for (let start = 0; start < 9; start++)
        for (let at = 0; at < 6; at++) {
          const from = sources[(length + start) % 2]!;
          const into = targets[at % 2]!;
          const before = Buffer.from(into);
          const end = Math.min(from.length, start + length);
          expect(copier.copy(from, start, end, into, at)).toBe(at + end - start);
          const expected = Buffer.concat([before.subarray(0, at), from.subarray(start, end), before.subarray(at + end - start)]);
          expect(into.equals(expected)).toBe(true);
          before.copy(into); // the next case starts from the same bytes
        }
  });
});
