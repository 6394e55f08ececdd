import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBatches } from '../../src/formats/index.js';

describe('readBatches', () => {
  it('hands out every object once, in order, several per batch when the stream has them buffered', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ i }));
    const batches: Array<Array<{ i: number }>> = [];
    for await (const batch of readBatches<{ i: number }>(Readable.from(items, { highWaterMark: 64 }))) batches.push(batch);
    expect(batches.flat()).toEqual(items);
    expect(batches.length).toBeLessThan(items.length / 10);
  });

  it('delivers what came before an error, then throws the error', async () => {
    const stream = new PassThrough({ objectMode: true });
    stream.write({ n: 1 });
    stream.write({ n: 2 });
    setImmediate(() => stream.destroy(new Error('disk gone')));
    const seen: number[] = [];
    await expect(async () => {
      for await (const batch of readBatches<{ n: number }>(stream)) seen.push(...batch.map((b) => b.n));
    }).rejects.toThrow('disk gone');
    expect(seen).toEqual([1, 2]);
  });

  it('treats a stream closed before its end as a failure, not as the end', async () => {
    const stream = new PassThrough({ objectMode: true });
    stream.write({ n: 1 });
    setImmediate(() => stream.destroy());
    await expect(async () => {
      for await (const _ of readBatches(stream)) void _;
    }).rejects.toThrow(/premature close/i);
  });

  it('destroys the stream when the consumer stops early', async () => {
    const stream = Readable.from(Array.from({ length: 10_000 }, (_, i) => i), { highWaterMark: 16 });
    for await (const batch of readBatches<number>(stream)) if (batch.length > 0) break;
    expect(stream.destroyed).toBe(true);
  });
});
