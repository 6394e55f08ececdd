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

describe('ColumnBuffer.setTextIn', () => {
  it('writes the UTF-8 bytes of the slice it is given, copied in place or encoded, and nothing of the text around it', () => {
    const line = `ab,é😀,${'x'.repeat(64)},${'y'.repeat(63)},\u0080,,mid,z`;
    const cuts: Array<[number, number]> = [];
    for (let from = 0, at = line.indexOf(','); ; at = line.indexOf(',', from)) {
      cuts.push([from, at === -1 ? line.length : at]);
      if (at === -1) break;
      from = at + 1;
    }
    cuts.push([0, line.length], [3, 5], [4, 5]);
    const column = new ColumnBuffer({ name: 's', type: 'string' }, cuts.length);
    column.bytes = new Uint8Array(4);
    cuts.forEach(([start, end], i) => column.setTextIn(i, line, start, end));
    cuts.forEach(([start, end], i) => {
      const bytes = column.bytes.subarray(column.offsets![i]!, column.offsets![i + 1]!);
      expect(Buffer.from(bytes).toString('hex')).toBe(Buffer.from(line.slice(start, end), 'utf8').toString('hex'));
    });
  });
});

describe('ColumnBuffer.unset', () => {
  /** What a reader of the buffer can see of its first `length` slots. */
  function visible(column: ColumnBuffer, length: number) {
    const valid = (i: number) => (column.validity[i >> 3]! & (1 << (i & 7))) !== 0;
    return {
      nullCount: column.nullCount,
      byteLength: column.byteLength,
      slots: Array.from({ length }, (_, i) => {
        if (!valid(i)) return null;
        if (column.offsets) return Buffer.from(column.bytes.subarray(column.offsets[i]!, column.offsets[i + 1]!)).toString('utf8');
        if (column.bits) return (column.bits[i >> 3]! & (1 << (i & 7))) !== 0;
        if (column.int32) return column.int32[i];
        return column.int64![i];
      }),
    };
  }

  const cases = [
    { type: 'string', set: (c: ColumnBuffer, i: number) => c.setText(i, 'näme, "x"\n') },
    { type: 'int64', set: (c: ColumnBuffer, i: number) => c.setSafeInteger(i, -9007199254740991) },
    { type: 'int32', set: (c: ColumnBuffer, i: number) => c.setInt32(i, -7) },
    { type: 'boolean', set: (c: ColumnBuffer, i: number) => c.setBoolean(i, true) },
    { type: 'timestamp_us', set: (c: ColumnBuffer, i: number) => c.setSafeInteger(i, -1) },
  ] as const;

  for (const { type, set } of cases)
    it(`leaves a ${type} slot as it was before its value or null was set`, () => {
      // Slots 0 and 1 hold a value and a null; slot 2 is set, taken back, then filled as it finally is.
      const fill = (column: ColumnBuffer, detour: (c: ColumnBuffer) => void, last: 'value' | 'null') => {
        set(column, 0);
        column.setNull(1);
        detour(column);
        if (last === 'value') set(column, 2);
        else column.setNull(2);
        return visible(column, 3);
      };
      const spec = { name: 'c', type, nullable: true };
      for (const last of ['value', 'null'] as const) {
        const straight = fill(new ColumnBuffer(spec, 9), () => undefined, last);
        const afterValue = fill(new ColumnBuffer(spec, 9), (c) => { set(c, 2); c.unset(2); }, last);
        const afterNull = fill(new ColumnBuffer(spec, 9), (c) => { c.setNull(2); c.unset(2); }, last);
        expect(afterValue).toEqual(straight);
        expect(afterNull).toEqual(straight);
      }
    });
});
