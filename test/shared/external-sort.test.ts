import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExternalSort, JSON_CODEC, type SortCodec } from '../../src/shared/external-sort.js';
import { rng } from '../helpers/rng.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'external-sort-test-'));
});
afterEach(() => rm(base, { recursive: true, force: true }));

/** Entries with few distinct keys (many ties), texts of every size up to past a run file's read buffer, some not ASCII. */
function entries(seed: number, count: number): Array<{ key: number; text: string }> {
  const random = rng(seed);
  return Array.from({ length: count }, (_, i) => ({ key: Math.floor(random() * 50), text: `${i} ${random() < 0.01 ? 'x'.repeat(70_000) : 'é🎉'.repeat(Math.floor(random() * 20))}` }));
}

/** What a stable in-memory sort gives. */
const stableOrder = (list: Array<{ key: number; text: string }>) => [...list].sort((a, b) => a.key - b.key).map((e) => e.text);

describe('ExternalSort', () => {
  it('within its budget: by key, equal keys as added, nothing on disk', () => {
    const list = entries(1, 2000);
    const sort = new ExternalSort(64 * 1024 * 1024, base);
    for (const e of list) sort.add(e.key, e.text);
    expect(sort.spilled).toBe(false);
    expect([...sort.sorted()]).toEqual(stableOrder(list));
    expect(readdirSync(base)).toEqual([]);
  });

  it('past its budget (run files merged over more than one level): the same order, and close() leaves no file', () => {
    const list = entries(2, 3000);
    const sort = new ExternalSort(2000, base);
    for (const e of list) sort.add(e.key, e.text);
    expect(sort.spilled).toBe(true);
    expect([...sort.sorted()]).toEqual(stableOrder(list));
    sort.close();
    expect(readdirSync(base)).toEqual([]);
  });

  /** Objects through JSON_CODEC, counting what the sort asks of the codec. */
  function countingCodec(): SortCodec<{ i: number; text: string }> & { encoded: number; sized: number } {
    const codec = {
      encoded: 0,
      sized: 0,
      sizeOf: (value: unknown) => (codec.sized++, JSON_CODEC.sizeOf(value)),
      encode: (value: unknown) => (codec.encoded++, JSON_CODEC.encode(value)),
      decode: (text: string) => JSON_CODEC.decode(text) as { i: number; text: string },
    };
    return codec;
  }

  it('holds values within its budget as they are: none serialized, the very objects handed back in order', () => {
    const list = entries(3, 2000).map((e, i) => ({ key: e.key, value: { i, text: e.text } }));
    const codec = countingCodec();
    const sort = new ExternalSort(64 * 1024 * 1024, base, codec);
    for (const e of list) sort.add(e.key, e.value);
    const out = [...sort.sorted()];
    expect([sort.spilled, codec.sized, codec.encoded]).toEqual([false, 2000, 0]);
    const expected = [...list].sort((a, b) => a.key - b.key).map((e) => e.value);
    expect(out.every((value, k) => value === expected[k])).toBe(true);
  });

  it('past its budget serializes only what it spills: the same order, the values still in memory handed back as they are', () => {
    const list = entries(4, 3000).map((e, i) => ({ key: e.key, value: { i, text: e.text } }));
    const codec = countingCodec();
    const sort = new ExternalSort(20_000, base, codec);
    for (const e of list) sort.add(e.key, e.value);
    const out = [...sort.sorted()];
    sort.close();
    expect(sort.spilled).toBe(true);
    expect(out).toEqual([...list].sort((a, b) => a.key - b.key).map((e) => e.value));
    const kept = out.filter((value) => list[value.i]!.value === value).length;
    expect(codec.encoded).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
    expect(codec.encoded + kept).toBe(3000);
    expect(readdirSync(base)).toEqual([]);
  });
});
