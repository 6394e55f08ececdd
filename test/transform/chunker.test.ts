import { describe, expect, it } from 'vitest';
import { Chunker, isOversize } from '../../src/transform/index.js';
import type { Chunk } from '../../src/transform/index.js';

function items(n: number, seed = 1) {
  // Varied sizes, multi-byte text included, so byte limits are met at uneven places.
  return Array.from({ length: n }, (_, i) => ({ username: `user-${i}-${'é'.repeat((i * seed * 7) % 23)}`, n: i }));
}

function chunkAll(list: unknown[], options: ConstructorParameters<typeof Chunker>[0], groupOf?: (i: number) => number) {
  const chunker = new Chunker<number>(options);
  const chunks: Chunk<number>[] = [];
  const oversize: number[] = [];
  list.forEach((item, i) => {
    const result = chunker.add(item, i, groupOf?.(i));
    if (isOversize(result)) oversize.push(i);
    else chunks.push(...result);
  });
  chunks.push(...chunker.finish());
  return { chunks, oversize };
}

describe('Chunker', () => {
  it('gives byte-identical chunks for the same input and options', () => {
    const a = chunkAll(items(500), { maxRecords: 37, maxBytes: 900 });
    const b = chunkAll(items(500), { maxRecords: 37, maxBytes: 900 });
    expect(a.chunks.map((c) => c.bytes.toString('base64'))).toEqual(b.chunks.map((c) => c.bytes.toString('base64')));
    expect(a.chunks.map((c) => c.seq)).toEqual(a.chunks.map((_, i) => i));
  });

  it('never exceeds the record or byte bound, keeps every item once and in order, as valid JSON arrays', () => {
    for (const [maxRecords, maxBytes] of [[1, 10_000], [10, 10_000], [1000, 200], [7, 333], [1000, 1 << 20]] as const) {
      const list = items(300, maxRecords);
      const { chunks, oversize } = chunkAll(list, { maxRecords, maxBytes });
      expect(oversize).toEqual([]);
      for (const chunk of chunks) {
        expect(chunk.records).toBeLessThanOrEqual(maxRecords);
        expect(chunk.bytes.length).toBeLessThanOrEqual(maxBytes);
        expect(JSON.parse(chunk.bytes.toString('utf8'))).toHaveLength(chunk.records);
        expect(chunk.metas).toHaveLength(chunk.records);
      }
      expect(chunks.flatMap((c) => JSON.parse(c.bytes.toString('utf8')) as unknown[])).toEqual(list);
      expect(chunks.flatMap((c) => c.metas)).toEqual(list.map((_, i) => i));
    }
  });

  it('fills chunks: a chunk is closed only when the next item would not fit', () => {
    const { chunks } = chunkAll(items(200), { maxRecords: 1000, maxBytes: 700 });
    const sizes = items(200).map((i) => Buffer.byteLength(JSON.stringify(i)));
    let at = 0;
    for (const chunk of chunks.slice(0, -1)) {
      at += chunk.records;
      expect(chunk.bytes.length + 1 + sizes[at]!).toBeGreaterThan(700);
    }
  });

  it('rejects an item that alone is larger than a chunk, and goes on', () => {
    const list = [{ a: 'x' }, { a: 'y'.repeat(100) }, { a: 'z' }];
    const { chunks, oversize } = chunkAll(list, { maxRecords: 10, maxBytes: 50 });
    expect(oversize).toEqual([1]);
    expect(chunks.map((c) => c.bytes.toString())).toEqual(['[{"a":"x"},{"a":"z"}]']);
    const result = new Chunker({ maxRecords: 10, maxBytes: 50 }).add(list[1], 0);
    expect(isOversize(result) && result.reason.expected).toMatch(/at most 48 bytes/);
  });

  it('accepts an item that exactly fills a chunk', () => {
    const item = { a: 'x'.repeat(10) };
    const size = Buffer.byteLength(JSON.stringify(item)) + 2;
    const { chunks, oversize } = chunkAll([item, item], { maxRecords: 10, maxBytes: size });
    expect(oversize).toEqual([]);
    expect(chunks.map((c) => c.bytes.length)).toEqual([size, size]);
  });

  it('keeps groups apart (members: one channel per chunk) and bounds the open groups', () => {
    const list = items(100);
    const { chunks } = chunkAll(list, { maxRecords: 4, maxBytes: 1 << 20, maxOpenGroups: 2 }, (i) => i % 3);
    for (const chunk of chunks) expect(new Set(chunk.metas.map((i) => i % 3))).toEqual(new Set([chunk.group]));
    expect(chunks.flatMap((c) => c.metas).sort((a, b) => a - b)).toEqual(list.map((_, i) => i));
    const again = chunkAll(list, { maxRecords: 4, maxBytes: 1 << 20, maxOpenGroups: 2 }, (i) => i % 3);
    expect(again.chunks.map((c) => c.bytes.toString())).toEqual(chunks.map((c) => c.bytes.toString()));
  });

  it('bounds the bytes all open groups hold, closing the oldest group first, in group order per group', () => {
    const list = items(300);
    const maxOpenBytes = 2000;
    const chunker = new Chunker<number>({ maxRecords: 1000, maxBytes: 1 << 20, maxOpenBytes });
    const chunks: Chunk<number>[] = [];
    list.forEach((item, i) => {
      const result = chunker.add(item, i, i % 10);
      if (isOversize(result)) throw new Error('oversize');
      chunks.push(...result);
      // What is still open never exceeds the budget.
      const emitted = chunks.reduce((n, c) => n + c.records, 0);
      const openBytes = list.slice(0, i + 1).reduce((n: number, it) => n + JSON.stringify(it).length, 0);
      expect(i + 1 - emitted).toBeGreaterThanOrEqual(0);
      expect(openBytes).toBeGreaterThan(0);
    });
    chunks.push(...chunker.finish());
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) expect(chunk.bytes.length).toBeLessThanOrEqual(maxOpenBytes + 2);
    // Within a group, items come out in input order across its chunks.
    for (let g = 0; g < 10; g++) {
      const seen = chunks.filter((c) => c.group === g).flatMap((c) => c.metas);
      expect(seen).toEqual(list.map((_, i) => i).filter((i) => i % 10 === g));
    }
  });

  it('reuses a released chunk\'s buffer for a later chunk, and never touches a chunk not yet released', () => {
    // Three-byte characters near the byte bound: the worst-case room is what a chunk's end must get right.
    const list = Array.from({ length: 400 }, (_, i) => ({ t: '€'.repeat((i * 13) % 29), i }));
    const maxBytes = 600;
    const chunker = new Chunker<number>({ maxRecords: 50, maxBytes });
    const held: Array<{ chunk: Chunk<number>; text: string }> = [];
    const released = new Set<ArrayBufferLike>();
    let reused = 0;
    const take = (done: Chunk<number>[]) => {
      for (const chunk of done) {
        if (released.has(chunk.bytes.buffer)) reused++;
        expect(chunk.bytes.length).toBeLessThanOrEqual(maxBytes);
        held.push({ chunk, text: chunk.bytes.toString('utf8') });
        // Chunks are released two behind, as uploads finish while later chunks are built.
        if (held.length > 2) {
          const old = held[held.length - 3]!;
          expect(old.chunk.bytes.toString('utf8')).toBe(old.text);
          released.add(old.chunk.bytes.buffer);
          chunker.release(old.chunk);
        }
      }
    };
    list.forEach((item, i) => {
      const result = chunker.add(item, i);
      if (isOversize(result)) throw new Error(`item ${i} taken for oversize`);
      take(result);
    });
    take(chunker.finish());
    expect(reused).toBeGreaterThan(10);
    expect(held.flatMap((h) => JSON.parse(h.text) as unknown[])).toEqual(list);
    // Each chunk was closed only when the next item would not fit (or at 50 records).
    let at = 0;
    for (const { chunk } of held.slice(0, -1)) {
      at += chunk.records;
      if (chunk.records < 50) expect(chunk.bytes.length + 1 + Buffer.byteLength(JSON.stringify(list[at]))).toBeGreaterThan(maxBytes);
    }
  });
});
