import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SourceDuplicates, idempotencyKeyFor, keyFingerprint, type Accepted } from '../../src/transform/index.js';
import { orderByFingerprint } from '../../src/transform/fingerprint-order.js';
import { SpillingKeyTable } from '../../src/transform/spilling-key-table.js';
import { rng } from '../helpers/rng.js';

const root = mkdtempSync(join(tmpdir(), 'chatport-spill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => join(root, `t${dirs++}`);

/** The spilled run files in `dir` (beside them, the folder's owner file: spill-folders.ts). */
const runFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.bin')).length;

describe('spilling key table', () => {
  it('finds every key, in memory or spilled to many runs, and none it was not given; keeps updates made on disk', () => {
    const dir = newDir();
    const table = new SpillingKeyTable(dir, 1000);
    const n = 25_000;
    const fp = (i: number) => keyFingerprint(idempotencyKeyFor('p', 'messages', `k${i}`));
    for (let i = 1; i <= n; i++) {
      const [hi, lo] = fp(i);
      expect(table.lookup(hi, lo)).toBeUndefined();
      table.insert(hi, lo, i * 3, i);
    }
    expect(table.size).toBe(n);
    // 24 spills of 1,000 keys, merged as a binary counter: runs of 16,000 and 8,000 keys.
    expect(runFiles(dir)).toBe(2);
    for (let i = 1; i <= n; i += 7) {
      const [hi, lo] = fp(i);
      expect(table.lookup(hi, lo), `key ${i}`).toMatchObject({ content: i * 3, ordinal: i });
    }
    for (let i = n + 1; i <= n + 5000; i++) {
      const [hi, lo] = fp(i);
      expect(table.lookup(hi, lo), `key ${i} was never given`).toBeUndefined();
    }
    for (const i of [1, 999, 1001, 12_345, n]) {
      const [hi, lo] = fp(i);
      table.lookup(hi, lo)!.set(7, n + i);
      expect(table.lookup(hi, lo)).toMatchObject({ content: 7, ordinal: n + i });
    }
    // Memory stays at the table, the Bloom filter and the sparse index, whatever n is.
    expect(table.bytes).toBeLessThan(17 * 2 ** 20 + n * 3);
    table.close();
    expect(existsSync(dir)).toBe(false);
  });

  it('merges runs as they pile up, keeping updates made on disk before a merge, and never more than log2(spills) + 1 runs', () => {
    const dir = newDir();
    const table = new SpillingKeyTable(dir, 100);
    const fp = (i: number) => keyFingerprint(idempotencyKeyFor('p', 'messages', `m${i}`));
    const runCounts: number[] = [];
    for (let i = 1; i <= 3_100; i++) {
      table.insert(...fp(i), 1, i);
      // Each key already spilled is updated once, before later spills merge its run with others.
      if (i % 100 === 0 && i > 200) table.lookup(...fp(i - 150))!.set(2, i - 150 + 1_000_000);
      runCounts.push(existsSync(dir) ? runFiles(dir) : 0);
    }
    expect(Math.max(...runCounts)).toBeLessThanOrEqual(Math.floor(Math.log2(30)) + 1);
    // 30 spills = 0b11110: runs of 1,600, 800, 400 and 200 keys.
    expect(runFiles(dir)).toBe(4);
    for (let i = 1; i <= 3_100; i++) {
      const updated = i % 100 === 50 && i > 50 && i <= 2_950;
      expect(table.lookup(...fp(i)), `key ${i}`).toMatchObject(updated ? { content: 2, ordinal: i + 1_000_000 } : { content: 1, ordinal: i });
    }
    for (let i = 3_101; i <= 8_000; i++) expect(table.lookup(...fp(i)), `key ${i} was never given`).toBeUndefined();
    table.close();
    expect(existsSync(dir)).toBe(false);
  });

  it('sizes the spilled keys\' filter for the expected keys once, instead of growing it run by run', () => {
    const fp = (i: number) => keyFingerprint(idempotencyKeyFor('p', 'messages', `e${i}`));
    const fill = (table: SpillingKeyTable, n: number) => {
      const capacities = new Set<number>();
      for (let i = 1; i <= n; i++) {
        const [hi, lo] = fp(i);
        table.insert(hi, lo, i, i);
        capacities.add(table.filterCapacity);
      }
      return [...capacities];
    };
    // No budget: the filter's size is what the keys need.
    const hinted = new SpillingKeyTable(newDir(), 500, () => 15_000, Infinity);
    const grown = new SpillingKeyTable(newDir(), 500, () => undefined, Infinity);
    // A budget of 64 KiB, of which the table (1,024 slots) takes 16 KiB.
    const roomy = new SpillingKeyTable(newDir(), 500, () => 15_000, 64 * 1024);
    // With the hint, the filter is made once, at the first spill, for the expected keys and a tenth more.
    expect(fill(hinted, 15_000)).toEqual([0, 16_500]);
    // Without it, it grows by half again each time the spilled keys pass it, read back from the run files.
    expect(fill(grown, 15_000)).toEqual([0, 750, 1500, 3000, 5250, 8250, 12750, 19500]);
    // Within a budget it takes what the table leaves (48 KiB, 1 byte a key), more than the keys need.
    expect(fill(roomy, 15_000)).toEqual([0, 48 * 1024]);
    expect(roomy.bytes).toBeGreaterThanOrEqual(64 * 1024);
    for (const table of [hinted, grown, roomy]) {
      for (let i = 1; i <= 15_000; i += 13) expect(table.lookup(...fp(i)), `key ${i}`).toMatchObject({ ordinal: i });
      let maybe = 0;
      for (let i = 15_001; i <= 25_000; i++) if (table.lookup(...fp(i)) !== undefined) maybe++;
      expect(maybe).toBe(0);
      table.close();
    }
  });

  it('keeps the table and the filter within the memory budget by spilling sooner, for inputs whose filter would pass it', () => {
    const fp = (i: number) => keyFingerprint(idempotencyKeyFor('p', 'messages', `g${i}`));
    // 4,000 keys need a table of 8,192 slots (128 KiB); 100,000 expected keys a filter of about 110 KB.
    const budgeted = new SpillingKeyTable(newDir(), 4_000, () => 100_000, 150_000);
    const unbounded = new SpillingKeyTable(newDir(), 4_000, () => 100_000, Infinity);
    const small = new SpillingKeyTable(newDir(), 4_000, () => 5_000, 150_000);
    const peaks = [0, 0, 0];
    [budgeted, unbounded, small].forEach((table, t) => {
      const n = t === 2 ? 5_000 : 100_000;
      for (let i = 1; i <= n; i++) {
        table.insert(...fp(i), i, i);
        peaks[t] = Math.max(peaks[t]!, table.bytes);
      }
    });
    // Halved twice (a table of 2,048 slots, 32 KiB, spilling at 1,000 keys), never below a quarter of memoryKeys;
    // the filter takes the rest of the budget; beside them only the sparse index (8 bytes per 256 spilled keys).
    expect(peaks[0]).toBeLessThanOrEqual(150_000 + Math.ceil(100_000 / 256) * 8);
    expect(peaks[0]).toBeGreaterThan(110_000 + 32 * 1024);
    expect(peaks[1]).toBeGreaterThan(110_000 + 128 * 1024);
    // A small input's filter leaves room: the table keeps its full size.
    expect(peaks[2]).toBeGreaterThanOrEqual(128 * 1024);
    for (const table of [budgeted, unbounded]) {
      for (let i = 1; i <= 100_000; i += 11) expect(table.lookup(...fp(i)), `key ${i}`).toMatchObject({ ordinal: i });
      for (let i = 100_001; i <= 110_000; i++) expect(table.lookup(...fp(i)), `key ${i} was never given`).toBeUndefined();
      table.close();
    }
    small.close();
  });

  it('sorts entries by fingerprint as unsigned numbers, high word first', () => {
    const random = rng(3);
    const words = new Uint32Array(4 * 5000);
    for (let i = 0; i < words.length; i++) words[i] = i % 4 < 2 ? Math.floor(random() * 2 ** (random() < 0.3 ? 4 : 32)) : i;
    const order = new Uint32Array(5000);
    expect(orderByFingerprint(words, order)).toBe(5000);
    const sorted = new Uint32Array(words.length);
    order.forEach((entry, i) => sorted.set(words.subarray(entry * 4, entry * 4 + 4), i * 4));
    const pairs = (w: Uint32Array) => Array.from({ length: w.length / 4 }, (_, i) => [w[i * 4]!, w[i * 4 + 1]!, w[i * 4 + 2]!, w[i * 4 + 3]!]);
    const expected = pairs(words).sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    expect(pairs(sorted).map((p) => [p[0], p[1]])).toEqual(expected.map((p) => [p[0], p[1]]));
    expect(new Set(pairs(sorted).map((p) => p.join(','))).size).toBe(5000);
  });
});

/** The same records through a table that never spills and one that spills every 50 keys give the same verdicts. */
describe('source duplicates beyond memory', () => {
  const accepted = (key: string, name: string, i: number): Accepted =>
    ({ kind: 'accepted', item: { name, idempotencyKey: idempotencyKeyFor('p', 'users', key) }, sourceKey: key, position: { file: 'u.csv', line: i + 2, index: i } }) as Accepted;

  function verdicts(duplicates: SourceDuplicates, list: Accepted[]): string[] {
    if (duplicates.mode === 'last-wins') {
      list.forEach((a, i) => duplicates.noteInFirstPass(i + 1, a.position, a, JSON.stringify(a.item)));
      duplicates.endFirstPass();
    }
    const out = list.map((a, i) => {
      duplicates.note(i + 1, a.position);
      const v = duplicates.check(i + 1, a, JSON.stringify(a.item));
      return v === undefined ? 'sent' : v.kind === 'conflict' ? `conflict ${v.reason.found}` : `${v.kind} of ${v.line.of.line}`;
    });
    duplicates.close();
    return out;
  }

  for (const mode of ['reject', 'last-wins'] as const)
    it(`${mode}: spilling changes no verdict`, () => {
      const random = rng(mode.length);
      const list = Array.from({ length: 3000 }, (_, i) => {
        const key = random() < 0.1 ? `k${Math.floor(random() * 200)}` : `u${i}`;
        return accepted(key, random() < 0.5 ? 'same' : `other${i % 3}`, i);
      });
      const inMemory = verdicts(new SourceDuplicates(mode, 'id', newDir()), list);
      const spilled = verdicts(new SourceDuplicates(mode, 'id', newDir(), 50), list);
      expect(spilled).toEqual(inMemory);
      expect(inMemory.filter((v) => v !== 'sent').length).toBeGreaterThan(50);
    });
});

describe('the spilled keys\' Bloom filter', () => {
  it('never misses a spilled key, and rarely says maybe for another', () => {
    const table = new SpillingKeyTable(newDir(), 1000);
    const fp = (i: number) => keyFingerprint(idempotencyKeyFor('p', 'messages', `b${i}`));
    for (let i = 1; i <= 20_000; i++) table.insert(...fp(i), 1, i);
    const bloom = (table as unknown as { bloom: { mayHave(hi: number, lo: number): boolean } }).bloom;
    // Keys 1..19,000 are in run files (the last 1,000 in memory): every one must be a "maybe".
    for (let i = 1; i <= 19_000; i++) expect(bloom.mayHave(...fp(i))).toBe(true);
    let maybes = 0;
    for (let i = 100_000; i < 200_000; i++) if (bloom.mayHave(...fp(i))) maybes++;
    // 8 bits a key and 6 probes: about 1 in 50 when the filter is full, fewer until then.
    expect(maybes).toBeLessThan(1_500);
    table.close();
  });
});
