import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExternalSort } from '../../src/shared/external-sort.js';
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
});
