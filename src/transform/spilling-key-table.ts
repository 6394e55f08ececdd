/**
 * The source keys of a stage of any size in bounded memory (issue 12: an import's memory must not grow
 * with its input). Up to `memoryKeys` keys live in a KeyTable (16 MiB); when it is full its entries are
 * sorted by fingerprint and written to a run file in `dir`, and the table starts empty again. A key is
 * looked for in the table, then, if the Bloom filter over every spilled key says it may be there, in each
 * run: a sparse index in memory (every 256th fingerprint) names the one 4 KiB block to read.
 *
 * Memory: the table, 2 to 3 bytes a spilled key for the Bloom filter (16 bits a key at its capacity, which
 * grows by half; about 1 false "maybe" in 1,000, each costing a block read per run), and 8 bytes per 256 spilled keys of sparse index.
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
const BLOOM_PROBES = 8;
const BLOCK_BITS = 512;

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
    if (this.spilled > this.bloom.capacity) this.rebuildBloom(Math.ceil(this.spilled * 1.5));
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
 * Entries (4 words each) sorted by (hi, lo) as unsigned numbers: a least-significant-digit radix sort, a
 * byte a pass, moving whole entries between two arrays (reads in order, writes into 256 streams: far fewer
 * cache misses than sorting an index).
 */
export function sortByFingerprint(entries: Uint32Array): Uint32Array {
  const n = entries.length / ENTRY_WORDS;
  let from = entries.slice();
  let to = new Uint32Array(entries.length);
  const counts = new Uint32Array(257);
  // lo's bytes from the lowest, then hi's: the last pass decides first.
  for (let pass = 0; pass < 8; pass++) {
    const word = pass < 4 ? 1 : 0;
    const shift = (pass % 4) * 8;
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((from[i * ENTRY_WORDS + word]! >>> shift) & 0xff) + 1]!++;
    if (counts[1 + ((from[word]! >>> shift) & 0xff)] === n) continue; // every entry has this byte alike
    for (let d = 1; d <= 256; d++) counts[d]! += counts[d - 1]!;
    for (let i = 0; i < n; i++) {
      const at = i * ENTRY_WORDS;
      const dest = counts[(from[at + word]! >>> shift) & 0xff]!++ * ENTRY_WORDS;
      to[dest] = from[at]!;
      to[dest + 1] = from[at + 1]!;
      to[dest + 2] = from[at + 2]!;
      to[dest + 3] = from[at + 3]!;
    }
    const swap = from;
    from = to;
    to = swap;
  }
  return from;
}

/**
 * A blocked Bloom filter over (hi, lo) fingerprints, which are already uniform hashes: `hi` picks one 512-bit
 * block (one cache line), `lo` picks 8 bits in it. One memory access per key
 * instead of one per probe; at 16 bits a key about 1 false "maybe" in 1,000.
 */
/**
 * The probe step, from `lo`'s high half: the bits of `hi` may all be choosing the block (up to 2^32 blocks),
 * and bits shared with the block's choice would make the keys of a block probe alike.
 */
const stepOf = (lo: number) => ((lo >>> 16) | 1) >>> 0;

class Bloom {
  private readonly words: Uint32Array;
  private readonly blocks: number;

  constructor(readonly capacity: number) {
    this.blocks = Math.max(1, Math.ceil((capacity * BLOOM_BITS_PER_KEY) / BLOCK_BITS));
    this.words = new Uint32Array(this.blocks * (BLOCK_BITS / 32));
  }

  get bytes(): number {
    return this.words.byteLength;
  }

  add(hi: number, lo: number): void {
    const base = ((hi >>> 0) % this.blocks) * (BLOCK_BITS / 32);
    const step = stepOf(lo);
    for (let i = 0, h = lo >>> 0; i < BLOOM_PROBES; i++, h = (h + step) >>> 0) {
      const bit = h & (BLOCK_BITS - 1);
      this.words[base + (bit >>> 5)]! |= 1 << (bit & 31);
    }
  }

  mayHave(hi: number, lo: number): boolean {
    const base = ((hi >>> 0) % this.blocks) * (BLOCK_BITS / 32);
    const step = stepOf(lo);
    for (let i = 0, h = lo >>> 0; i < BLOOM_PROBES; i++, h = (h + step) >>> 0) {
      const bit = h & (BLOCK_BITS - 1);
      if ((this.words[base + (bit >>> 5)]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}
