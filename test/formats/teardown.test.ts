import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseRecords } from '../../src/formats/index.js';

function source(data: Buffer): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < data.length; i += 1024) parts.push(data.subarray(i, i + 1024));
  return Readable.from(parts);
}

const csv = Buffer.from(`id\n${Array.from({ length: 50_000 }, (_, i) => i).join('\n')}\n`);

describe('stopping early', () => {
  for (const [name, data] of [['plain', csv], ['gzip', gzipSync(csv)]] as const)
    it(`closes the source when the consumer stops (${name})`, async () => {
      const bytes = source(data);
      // Closed by destroy (Node gives the stream an AbortError, which nobody has to handle).
      const closed = new Promise((resolve) => bytes.once('close', resolve));
      let seen = 0;
      for await (const _ of parseRecords(bytes, { file: 'f' })) if (++seen === 3) break;
      await closed;
      expect(seen).toBe(3);
      expect(bytes.destroyed).toBe(true);
    });

  it('closes the source when the consumer stops before the first record', async () => {
    const bytes = source(csv);
    const records = parseRecords(bytes, { file: 'f' });
    await records.return?.();
    expect(bytes.destroyed).toBe(true);
  });
});
