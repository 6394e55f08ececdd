/**
 * The source keys of a stage of any size in bounded memory (issue 12: an import's memory must not grow
 * with its input). Up to `memoryKeys` keys live in a KeyTable (8 MiB); when it is full its entries are
 * sorted by fingerprint and written to a run file in `dir`, and the table starts empty again. A key is
 * looked for in the table, then, if the Bloom filter over every spilled key says it may be there, in each
 * run: a sparse index in memory (every 256th fingerprint) names the one 4 KiB block to read.
 *
 * Memory: the table, 4 bytes a table key for the order a spill writes in, 2 bytes a spilled key for the
 * Bloom filter (16 bits a key; made for the input's expected keys when known, else grown by half; about 1
 * false "maybe" in 1,000, each costing a block read per run), and 8 bytes per 256 spilled keys of sparse
 * index.
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
  /** Slot numbers of the table in fingerprint order, at a spill. */
  private order: Uint32Array | undefined;

  constructor(
    /** Where run files go (created when first needed, removed by close). */
    private readonly dir: string,
    /** Keys held in memory before a spill: 350,000 keep the table at 2^19 slots (8 MiB). */
    private readonly memoryKeys = 350_000,
    /**
     * How many keys the whole input may hold (from its size and what has been read), if known: the
     * filter is made for that many at once instead of growing by half again and again, each time
     * read back from every run file, with a third of it unused on average.
     */
    private readonly expectedKeys: () => number | undefined = () => undefined,
  ) {}

  get size(): number {
    return this.table.size + this.spilled;
  }

  /** How many spilled keys the filter is made for now. */
  get filterCapacity(): number {
    return this.bloom.capacity;
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
    // Written in fingerprint order straight from the table, through an index of its slots (4 bytes a key
    // and 256 KiB of bucket counts, kept from the first spill on): sorting a copy took 11 MB more at each spill.
    this.order ??= new Uint32Array(this.memoryKeys);
    const words = this.table.words;
    const count = orderByFingerprint(words, this.order);
    if (!this.dirMade) {
      mkdirSync(this.dir, { recursive: true });
      this.dirMade = true;
    }
    const fd = openSync(join(this.dir, `keys-${this.runs.length}.bin`), 'w+');
    const sparse = new Uint32Array(Math.ceil(count / BLOCK_ENTRIES) * 2);
    // A filter too small for the new total is made again from the files below; otherwise the keys go in now.
    const rebuild = this.spilled + count > this.bloom.capacity;
    const out = this.blockWords;
    let written = 0;
    for (let first = 0; first < count; first += BLOCK_ENTRIES) {
      const n = Math.min(BLOCK_ENTRIES, count - first);
      for (let i = 0; i < n; i++) {
        const at = this.order[first + i]! * ENTRY_WORDS;
        out[i * ENTRY_WORDS] = words[at]!;
        out[i * ENTRY_WORDS + 1] = words[at + 1]!;
        out[i * ENTRY_WORDS + 2] = words[at + 2]!;
        out[i * ENTRY_WORDS + 3] = words[at + 3]!;
        if (!rebuild) this.bloom.add(words[at]!, words[at + 1]!);
      }
      sparse[(first / BLOCK_ENTRIES) * 2] = out[0]!;
      sparse[(first / BLOCK_ENTRIES) * 2 + 1] = out[1]!;
      for (let done = 0; done < n * ENTRY_BYTES; ) done += writeSync(fd, this.block, done, n * ENTRY_BYTES - done, written + done);
      written += n * ENTRY_BYTES;
    }
    this.runs.push({ fd, count, sparse });
    this.spilled += count;
    if (rebuild) this.rebuildBloom(this.bloomCapacity());
    this.table.clear();
  }

  /** Half again the keys spilled, or the input's expected keys and a tenth more (at most 40 times those spilled). */
  private bloomCapacity(): number {
    const expected = this.expectedKeys() ?? 0;
    return Math.ceil(Math.max(this.spilled * 1.5, Math.min(expected * 1.1, this.spilled * 40)));
  }

  /** A larger filter, filled again from the run files (read in order: a filter cannot grow in place). */
  private rebuildBloom(capacity: number): void {
    // Dropped before the new one is made (it is filled from the files, not from the old filter), so a
    // collection while the new one fills can free it.
    this.bloom = new Bloom(0);
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

const BUCKET_BITS = 16;
/** The counting sort's buckets (256 KiB), made at the first spill and kept for the next ones. */
let bucketCounts: Uint32Array | undefined;

/**
 * The numbers of the used entries of `words` (4 words each; unused ones have ordinal 0) in (hi, lo) order,
 * into `order`; returns how many. A counting sort by hi's top 16 bits (fingerprints are uniform hashes, so
 * buckets hold a few entries each), then each bucket sorted by insertion, or by Array.sort if it is large.
 */
export function orderByFingerprint(words: Uint32Array, order: Uint32Array): number {
  const slots = words.length / ENTRY_WORDS;
  const counts = (bucketCounts ??= new Uint32Array((1 << BUCKET_BITS) + 1));
  counts.fill(0);
  let count = 0;
  for (let s = 0; s < slots; s++)
    if (words[s * ENTRY_WORDS + 3] !== 0) {
      counts[(words[s * ENTRY_WORDS]! >>> (32 - BUCKET_BITS)) + 1]!++;
      count++;
    }
  if (count > order.length) throw new RangeError(`${count} entries do not fit in an order of ${order.length}`);
  for (let b = 1; b < counts.length; b++) counts[b]! += counts[b - 1]!;
  for (let s = 0; s < slots; s++) if (words[s * ENTRY_WORDS + 3] !== 0) order[counts[words[s * ENTRY_WORDS]! >>> (32 - BUCKET_BITS)]!++] = s;
  // counts[b] is now where bucket b ends.
  let start = 0;
  for (let b = 0; b < 1 << BUCKET_BITS; b++) {
    const end = counts[b]!;
    if (end - start > 1) sortBucket(words, order, start, end);
    start = end;
  }
  return count;
}

function sortBucket(words: Uint32Array, order: Uint32Array, start: number, end: number): void {
  const before = (x: number, y: number) => compare(words[x * ENTRY_WORDS]!, words[x * ENTRY_WORDS + 1]!, words[y * ENTRY_WORDS]!, words[y * ENTRY_WORDS + 1]!);
  if (end - start > 32) {
    order.set(Array.from(order.subarray(start, end)).sort(before), start);
    return;
  }
  for (let i = start + 1; i < end; i++) {
    const entry = order[i]!;
    let j = i - 1;
    while (j >= start && before(order[j]!, entry) > 0) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = entry;
  }
}

/**
 * The probe step, from `lo`'s high half: the bits of `hi` may all be choosing the block (up to 2^32 blocks),
 * and bits shared with the block's choice would make the keys of a block probe alike.
 */
const stepOf = (lo: number) => ((lo >>> 16) | 1) >>> 0;

/**
 * A blocked Bloom filter over (hi, lo) fingerprints, which are already uniform hashes: `hi` picks one 512-bit
 * block (one cache line), `lo` picks 8 bits in it. One memory access per key instead of one per probe; at
 * 16 bits a key about 1 false "maybe" in 1,000.
 */
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
