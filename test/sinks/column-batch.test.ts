import { describe, expect, it } from 'vitest';
import { ColumnBuffer } from '../../src/sinks/column-batch.js';

describe('ColumnBuffer.setText', () => {
  it('writes every text as its UTF-8 bytes, whether the ASCII copy or the encoder takes it', () => {
    const ascii63 = 'x'.repeat(63);
    const texts = [
      '', 'abc', 'é', 'a😀b', '\ud800x', 'x\udc00', '\u007f', '\u0080', 'a\u0000b',
      ascii63, `${ascii63}y`, `${ascii63}yz`, `${ascii63}é`, `é${ascii63}`, `${'z'.repeat(200)}`, `${'z'.repeat(200)}é`,
      'short again', 'مرحبا', 'golf juliet émoji 🎉',
    ];
    // A small buffer first: it grows on the way, keeping what was written.
    const column = new ColumnBuffer({ name: 's', type: 'string' }, texts.length);
    column.bytes = new Uint8Array(8);
    texts.forEach((text, i) => column.setText(i, text));
    texts.forEach((text, i) => {
      const bytes = column.bytes.subarray(column.offsets![i]!, column.offsets![i + 1]!);
      expect(Buffer.from(bytes).equals(Buffer.from(text, 'utf8'))).toBe(true);
    });
    expect(column.byteLength).toBe(texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0));
  });
});
