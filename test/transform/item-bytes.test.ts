import { describe, expect, it } from 'vitest';
import { Chunker, ItemEncoder, isOversize, type Chunk } from '../../src/transform/index.js';
import { contentHash } from '../../src/transform/key-table.js';

// Multi-byte text of every width (2, 3 and 4 bytes: a surrogate pair) and items past the scratch's first
// size (64 KiB) and past what it keeps (1 MiB), so growth and the one-off buffer are both taken; 'PLAIN'
// after the growth has the length 'plain' had before it.
const texts = ['plain', 'Grüße', '世界 مرحبا', 'émoji 🎉🙂', '€'.repeat(30_000), '🎉'.repeat(20_000), 'é'.repeat(600_000), 'x', 'PLAIN'];

describe('ItemEncoder', () => {
  it('gives the UTF-8 of each JSON text, whatever its size and the sizes before it', () => {
    const encoder = new ItemEncoder();
    for (const text of texts) {
      const json = JSON.stringify({ body: text });
      expect(Buffer.compare(encoder.encode(json), Buffer.from(json, 'utf8'))).toBe(0);
    }
  });

  it('gives the fingerprint of the text: contentHash of the bytes equals contentHash of the string', () => {
    const encoder = new ItemEncoder();
    for (const text of texts) {
      const json = JSON.stringify({ body: text, lone: '\ud800' });
      expect(contentHash(encoder.encode(json))).toBe(contentHash(json));
    }
  });
});

describe('Chunker.addBytes', () => {
  function chunksOf(add: (chunker: Chunker<number>, item: unknown, i: number) => Chunk<number>[] | ReturnType<Chunker<number>['add']>) {
    const chunker = new Chunker<number>({ maxRecords: 7, maxBytes: 40_000 });
    const out: string[] = [];
    const oversize: number[] = [];
    const list = Array.from({ length: 120 }, (_, i) => ({ body: `${texts[i % 4]} ${'€'.repeat((i * 37) % 2000)}`, i }));
    list.push({ body: '€'.repeat(20_000), i: 120 });
    list.forEach((item, i) => {
      const result = add(chunker, item, i);
      if (isOversize(result)) oversize.push(i);
      else out.push(...result.map((c) => c.bytes.toString('base64')));
    });
    out.push(...chunker.finish().map((c) => c.bytes.toString('base64')));
    return { out, oversize };
  }

  it('gives the same chunk bytes as add, though the caller reuses its buffer for the next item', () => {
    const encoder = new ItemEncoder();
    const viaBytes = chunksOf((chunker, item, i) => chunker.addBytes(encoder.encode(JSON.stringify(item)), i));
    const viaAdd = chunksOf((chunker, item, i) => chunker.add(item, i));
    expect(viaBytes.oversize).toEqual([120]);
    expect(viaBytes).toEqual(viaAdd);
  });

  it('refuses an oversize item with the same reason as add', () => {
    const item = { body: 'é'.repeat(30) };
    const a = new Chunker({ maxRecords: 10, maxBytes: 50 }).add(item, 0);
    const b = new Chunker({ maxRecords: 10, maxBytes: 50 }).addBytes(Buffer.from(JSON.stringify(item)), 0);
    expect(isOversize(b) && b.reason).toEqual(isOversize(a) && a.reason);
    expect(isOversize(b) && b.reason.found).toBe(JSON.stringify(`${Buffer.byteLength(JSON.stringify(item))} bytes`));
  });
});
