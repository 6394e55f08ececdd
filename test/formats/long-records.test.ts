import { afterEach, describe, expect, it } from 'vitest';
import { parseAll, pieces } from './collect.js';
import type { FormatName } from '../../src/formats/index.js';

/**
 * A record longer than one read (a long field, or an unclosed quote that swallows the rest of a file) must
 * cost time linear in its length. Time itself is not measured (the machine is shared): the readers' text
 * copies are, as the characters String.prototype.slice hands out while the file is parsed. Keeping the
 * unfinished record and copying it again with each read of 32 KiB cost its length squared over 32 Ki.
 */
const sliceOf = String.prototype.slice;
let copied = 0;

function restoreSlice(): void {
  Object.defineProperty(String.prototype, 'slice', { configurable: true, writable: true, value: sliceOf });
}

function countSlices(): void {
  copied = 0;
  Object.defineProperty(String.prototype, 'slice', {
    configurable: true,
    writable: true,
    value: function slice(this: string, start?: number, end?: number): string {
      const out = sliceOf.call(this, start, end);
      copied += out.length;
      return out;
    },
  });
}

afterEach(restoreSlice);

const LONG = 4 * 1024 * 1024;
const READ = 32 * 1024;

const inputs: Array<{ format: FormatName; text: string; records: number }> = [
  { format: 'csv', text: `id,text\n1,${'x'.repeat(LONG)}\n2,short\n`, records: 2 },
  { format: 'csv', text: `id,text\n1,"${'x\n'.repeat(LONG / 2)}"\n2,short\n`, records: 2 },
  { format: 'ndjson', text: `{"id":1,"text":"${'x'.repeat(LONG)}"}\n{"id":2}\n`, records: 2 },
  { format: 'json', text: `[{"id":1,"text":"${'x'.repeat(LONG)}"},{"id":2}]`, records: 2 },
];

describe('a record longer than a read', () => {
  it.each(inputs)('is copied a bounded number of times ($format)', async ({ format, text, records }) => {
    const chunks = pieces(text, READ);
    countSlices();
    const items = await parseAll(chunks, { format });
    const slices = copied;
    restoreSlice();
    expect(items.filter((i) => 'record' in i)).toHaveLength(records);
    expect(slices).toBeLessThan(8 * text.length);
  });

  it('an unclosed quote is reported after one read of the file, not one per read', async () => {
    const text = `id,name\n1,"broken\n${'2,ok\n'.repeat(LONG / 5)}`;
    countSlices();
    const run = parseAll(pieces(text, READ), { format: 'csv', file: 'big.csv' });
    await expect(run).rejects.toMatchObject({ details: { file: 'big.csv', line: 2, csvCode: 'CSV_QUOTE_NOT_CLOSED' } });
    const slices = copied;
    restoreSlice();
    expect(slices).toBeLessThan(8 * text.length);
  });
});
