/**
 * The source keys of a stage of any size in bounded memory (issue 12: an import's memory must not grow
 * with its input). Up to `memoryKeys` keys live in a KeyTable (16 MiB); when it is full its entries are
 * sorted by fingerprint and written to a run file in `dir`, and the table starts empty again. A key is
 * looked for in the table, then, if the Bloom filter over every spilled key says it may be there, in each
 * run: a sparse index in memory (every 256th fingerprint) names the one 4 KiB block to read.
 *
 * Memory: the table, 2 bytes a spilled key for the Bloom filter (16 bits, 11 probes: about 1 false "maybe"
 * in 2,000, each costing a block read per run), and 8 bytes per 256 spilled keys of sparse index.
 * Disk: 16 bytes a spilled key. Entries are only added for keys not already present (callers look first).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { KeyTable } from './key-table.js';

/** A key found: its content fingerprint and ordinal, and a way to replace them (last-wins' first pass). */
export interface KeyEntry {
  content: number;
  ordinal: number;
  set(content: number, ordinal: number): void;
}

const ENTRY_WORDS = 4;
const ENTRY_BYTES = ENTRY_WORDS * 4;
const BLOCK_ENTRIES = 256;
const BLOOM_BITS_PER_KEY = 16;
const BLOOM_PROBES = 11;

/** One spilled, sorted run: its file and every 256th fingerprint. */
interface Run {
  fd: number;
  count: number;
  /** hi, lo of the first entry of each block. */
  sparse: Uint32Array;
}

export class SpillingKeyTable {
  private readonly table = new KeyTable();
  private readonly runs: Run[] = [];
  private spilled = 0;
  private bloom = new Bloom(0);
  private readonly block = Buffer.alloc(BLOCK_ENTRIES * ENTRY_BYTES);
  private readonly blockWords = new Uint32Array(this.block.buffer, this.block.byteOffset, BLOCK_ENTRIES * ENTRY_WORDS);
  private dirMade = false;

  constructor(
    /** Where run files go (created when first needed, removed by close). */
    private readonly dir: string,
    /** Keys held in memory before a spill: 700,000 keep the table at 2^20 slots (16 MiB). */
    private readonly memoryKeys = 700_000,
  ) {}

  get size(): number {
    return this.table.size + this.spilled;
  }

  /** Bytes held in memory. */
  get bytes(): number {
    return this.table.bytes + this.bloom.bytes + this.runs.reduce((n, r) => n + r.sparse.byteLength, 0);
  }

  lookup(hi: number, lo: number): KeyEntry | undefined {
    const slot = this.table.find(hi, lo);
    if (slot !== -1) {
      const table = this.table;
      return { content: table.contentAt(slot), ordinal: table.ordinalAt(slot), set: (content, ordinal) => table.update(slot, content, ordinal) };
    }
    if (this.runs.length === 0 || !this.bloom.mayHave(hi, lo)) return undefined;
    for (let r = this.runs.length - 1; r >= 0; r--) {
      const found = this.findInRun(this.runs[r]!, hi, lo);
      if (found) return found;
    }
    return undefined;
  }

  /** Adds a key that lookup did not find. */
  insert(hi: number, lo: number, content: number, ordinal: number): void {
    if (this.table.size >= this.memoryKeys) this.spill();
    this.table.insert(hi, lo, content, ordinal);
  }

  /** Closes and removes the run files. */
  close(): void {
    for (const run of this.runs) closeSync(run.fd);
    this.runs.length = 0;
    if (this.dirMade) rmSync(this.dir, { recursive: true, force: true });
  }

  private spill(): void {
    const entries = sortByFingerprint(this.table.entries());
    const count = entries.length / ENTRY_WORDS;
    if (!this.dirMade) {
      mkdirSync(this.dir, { recursive: true });
      this.dirMade = true;
    }
    const fd = openSync(join(this.dir, `keys-${this.runs.length}.bin`), 'w+');
    const bytes = Buffer.from(entries.buffer, entries.byteOffset, entries.byteLength);
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, done);
    const sparse = new Uint32Array(Math.ceil(count / BLOCK_ENTRIES) * 2);
    for (let b = 0; b * BLOCK_ENTRIES < count; b++) {
      sparse[b * 2] = entries[b * BLOCK_ENTRIES * ENTRY_WORDS]!;
      sparse[b * 2 + 1] = entries[b * BLOCK_ENTRIES * ENTRY_WORDS + 1]!;
    }
    this.runs.push({ fd, count, sparse });
    this.spilled += count;
    if (this.spilled > this.bloom.capacity) this.rebuildBloom(this.spilled * 2);
    else for (let i = 0; i < count; i++) this.bloom.add(entries[i * ENTRY_WORDS]!, entries[i * ENTRY_WORDS + 1]!);
    this.table.clear();
  }

  /** A larger filter, filled again from the run files (read in order: a filter cannot grow in place). */
  private rebuildBloom(capacity: number): void {
    this.bloom = new Bloom(capacity);
    for (const run of this.runs)
      for (let first = 0; first < run.count; first += BLOCK_ENTRIES) {
        const n = this.readBlock(run, first);
        for (let i = 0; i < n; i++) this.bloom.add(this.blockWords[i * ENTRY_WORDS]!, this.blockWords[i * ENTRY_WORDS + 1]!);
      }
  }

  private readBlock(run: Run, first: number): number {
    const n = Math.min(BLOCK_ENTRIES, run.count - first);
    const want = n * ENTRY_BYTES;
    for (let done = 0; done < want; ) {
      const got = readSync(run.fd, this.block, done, want - done, first * ENTRY_BYTES + done);
      if (got === 0) throw new Error(`key run file ended early (block at entry ${first})`);
      done += got;
    }
    return n;
  }

  private findInRun(run: Run, hi: number, lo: number): KeyEntry | undefined {
    // The last block whose first fingerprint is <= the key.
    let low = 0;
    let high = run.sparse.length / 2 - 1;
    if (compare(run.sparse[0]!, run.sparse[1]!, hi, lo) > 0) return undefined;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (compare(run.sparse[mid * 2]!, run.sparse[mid * 2 + 1]!, hi, lo) <= 0) low = mid;
      else high = mid - 1;
    }
    const first = low * BLOCK_ENTRIES;
    const n = this.readBlock(run, first);
    let a = 0;
    let b = n - 1;
    const words = this.blockWords;
    while (a <= b) {
      const mid = (a + b) >>> 1;
      const order = compare(words[mid * ENTRY_WORDS]!, words[mid * ENTRY_WORDS + 1]!, hi, lo);
      if (order === 0) {
        const at = (first + mid) * ENTRY_BYTES;
        const fd = run.fd;
        return {
          content: words[mid * ENTRY_WORDS + 2]!,
          ordinal: words[mid * ENTRY_WORDS + 3]!,
          set: (content, ordinal) => {
            const both = Buffer.alloc(8);
            both.writeUInt32LE(content, 0);
            both.writeUInt32LE(ordinal, 4);
            writeSync(fd, both, 0, 8, at + 8);
          },
        };
      }
      if (order < 0) a = mid + 1;
      else b = mid - 1;
    }
    return undefined;
  }
}

function compare(hiA: number, loA: number, hiB: number, loB: number): number {
  return hiA !== hiB ? (hiA < hiB ? -1 : 1) : loA === loB ? 0 : loA < loB ? -1 : 1;
}

/**
 * Entries (4 words each) sorted by (hi, lo) as unsigned numbers: a least-significant-digit radix sort,
 * 16 bits a pass, over an index (four linear passes instead of n log n comparisons).
 */
export function sortByFingerprint(entries: Uint32Array): Uint32Array {
  const n = entries.length / ENTRY_WORDS;
  let order = new Uint32Array(n);
  let next = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const counts = new Uint32Array(65_537);
  // lo's low half, lo's high half, then hi's: the last pass decides first.
  for (const [word, shift] of [[1, 0], [1, 16], [0, 0], [0, 16]] as const) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((entries[order[i]! * ENTRY_WORDS + word]! >>> shift) & 0xffff) + 1]!++;
    for (let d = 1; d <= 65_536; d++) counts[d]! += counts[d - 1]!;
    for (let i = 0; i < n; i++) {
      const e = order[i]!;
      next[counts[(entries[e * ENTRY_WORDS + word]! >>> shift) & 0xffff]!++] = e;
    }
    [order, next] = [next, order];
  }
  const sorted = new Uint32Array(entries.length);
  for (let i = 0; i < n; i++) sorted.set(entries.subarray(order[i]! * ENTRY_WORDS, order[i]! * ENTRY_WORDS + ENTRY_WORDS), i * ENTRY_WORDS);
  return sorted;
}

/** A Bloom filter over (hi, lo) fingerprints, which are already uniform hashes (double hashing). */
class Bloom {
  private readonly bits: Uint32Array;
  private readonly size: number;

  constructor(readonly capacity: number) {
    this.size = Math.max(64, capacity * BLOOM_BITS_PER_KEY);
    this.bits = new Uint32Array(Math.ceil(this.size / 32));
  }

  get bytes(): number {
    return this.bits.byteLength;
  }

  add(hi: number, lo: number): void {
    const step = (hi | 1) >>> 0;
    for (let i = 0, h = lo >>> 0; i < BLOOM_PROBES; i++, h = (h + step) >>> 0) {
      const bit = h % this.size;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
  }

  mayHave(hi: number, lo: number): boolean {
    const step = (hi | 1) >>> 0;
    for (let i = 0, h = lo >>> 0; i < BLOOM_PROBES; i++, h = (h + step) >>> 0) {
      const bit = h % this.size;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}
