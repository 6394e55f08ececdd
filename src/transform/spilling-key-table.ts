/**
 * The source keys of a stage of any size in bounded memory (issue 12: an import's memory must not grow
 * with its input). Up to `memoryKeys` keys live in a KeyTable (8 MiB); when it is full its entries are
 * sorted by fingerprint and written to a run file in `dir`, and the table starts empty again; runs of equal
 * size are merged (a binary counter, so at most log2(spills) + 1 runs). A key is looked for in the table,
 * then, if the Bloom filter over every spilled key says it may be there, in each run: a sparse index in
 * memory (every 256th fingerprint) names the one 4 KiB block to read.
 *
 * Memory: the table, 4 bytes a table key for the order a spill writes in, the Bloom filter (at least 1
 * byte a spilled key: made for the input's expected keys when known, else grown by half; about 1 false
 * "maybe" in 50 when full, each costing a block read per run), and 8 bytes per 256 spilled keys of sparse
 * index. The table and the filter share a budget (16 MiB): for a large input the table is made smaller,
 * down to a quarter, and the filter is given what the table leaves of it (fewer false "maybes" for a
 * smaller input), so from the first spill on memory is the budget whatever the input's size, up to about
 * 11 million keys; beyond that only the filter grows (docs/architecture.md "Memory").
 * Disk: 16 bytes a spilled key (twice that while two runs merge).
 * Entries are only added for keys not already present (callers look first).
 */
import { closeSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readFully as readFullyFrom, writeFully } from '../shared/positioned-io.js';
import { Bloom } from './blocked-bloom.js';
import { compare, ENTRY_WORDS, orderByFingerprint } from './fingerprint-order.js';
import { KeyTable } from './key-table.js';
import { claimSpillFolder } from '../shared/spill-folders.js';

/** A key found: its content fingerprint and ordinal, and a way to replace them (last-wins' first pass). */
export interface KeyEntry {
  content: number;
  ordinal: number;
  set(content: number, ordinal: number): void;
}

const ENTRY_BYTES = ENTRY_WORDS * 4;
const BLOCK_ENTRIES = 256;
/** How often (in keys added to the table) the spill limit is worked out again: the expected keys change as the input is read. */
const LIMIT_CHECK_KEYS = 16_384;
/** Entries a merge reads and writes at a time (256 KiB). */
const MERGE_ENTRIES = 16_384;

/** One spilled, sorted run: its file and every 256th fingerprint. */
interface Run {
  fd: number;
  path: string;
  count: number;
  /** hi, lo of the first entry of each block. */
  sparse: Uint32Array;
}

export class SpillingKeyTable {
  private table = new KeyTable();
  /** Keys the table holds before it spills now (spillLimit, checked every LIMIT_CHECK_KEYS keys). */
  private limit: number;
  private readonly runs: Run[] = [];
  private spilled = 0;
  private bloom = new Bloom(0);
  /** The keys the filter had to be made for at its last making (its capacity may be more: spareFilterKeys). */
  private bloomNeed = 0;
  private readonly block = Buffer.alloc(BLOCK_ENTRIES * ENTRY_BYTES);
  private readonly blockWords = new Uint32Array(this.block.buffer, this.block.byteOffset, BLOCK_ENTRIES * ENTRY_WORDS);
  private dirMade = false;
  /** Run files made so far (their names' numbers). */
  private runsMade = 0;
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
    /**
     * What the table and the filter may take together: a table that would pass it beside the filter the
     * expected keys need spills at half the keys (down to a quarter of memoryKeys), so memory stays the
     * same from small inputs to large ones (16 MiB: flat to about 11 million keys, the filter growing alone beyond).
     */
    private readonly memoryBudgetBytes = 16 * 2 ** 20,
  ) {
    this.limit = memoryKeys;
  }

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
    // Often enough to come before the table doubles (its sizes are 70% of powers of two), and cheap.
    if (this.table.size % LIMIT_CHECK_KEYS === 0) this.limit = this.spillLimit();
    if (this.table.size >= this.limit) this.spill();
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
    const { fd, path } = this.newRunFile();
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
      writeFully(fd, this.block, n * ENTRY_BYTES, written);
      written += n * ENTRY_BYTES;
    }
    this.runs.push({ fd, path, count, sparse });
    this.spilled += count;
    if (rebuild) {
      this.bloomNeed = this.neededFilterKeys();
      this.rebuildBloom(Math.max(this.bloomNeed, this.spareFilterKeys()));
    }
    // A table larger than the limit needs is made again smaller (clear keeps its capacity).
    const slots = slotsFor(this.limit);
    if (slots * ENTRY_BYTES < this.table.bytes) this.table = new KeyTable(slots);
    else this.table.clear();
    this.mergeEqualRuns();
  }

  /** memoryKeys, halved while a table for them and the filter the input's expected keys need pass the budget. */
  private spillLimit(): number {
    const expected = this.expectedKeys();
    if (expected === undefined) return this.memoryKeys;
    // What the filter needs, not what it was given: room it took from the budget is not a need.
    const filterBytes = Bloom.bytesFor(Math.max(this.bloomNeed, this.filterKeysFor(expected)));
    let keys = this.memoryKeys;
    while (keys / 2 >= this.memoryKeys / 4 && slotsFor(keys) * ENTRY_BYTES + filterBytes > this.memoryBudgetBytes) keys = Math.floor(keys / 2);
    return keys;
  }

  private newRunFile(): { fd: number; path: string } {
    if (!this.dirMade) {
      // Named with its owner: a later run removes it if this one is killed (a temp folder's is).
      claimSpillFolder(this.dir);
      this.dirMade = true;
    }
    const path = join(this.dir, `keys-${this.runsMade++}.bin`);
    return { fd: openSync(path, 'w+'), path };
  }

  /**
   * While the newest run is no smaller than the one before it, the two are merged into one (a binary
   * counter): at most log2(spills) + 1 runs, each key rewritten that many times, and a false "maybe" of
   * the filter costs a block read per run.
   */
  private mergeEqualRuns(): void {
    while (this.runs.length >= 2 && this.runs.at(-2)!.count <= this.runs.at(-1)!.count) {
      const newer = this.runs.pop()!;
      const older = this.runs.pop()!;
      this.runs.push(this.merge(older, newer));
      for (const run of [older, newer]) {
        closeSync(run.fd);
        unlinkSync(run.path);
      }
    }
  }

  /** One run of both runs' entries in fingerprint order (a key is in one run only: insert follows a missed lookup). */
  private merge(a: Run, b: Run): Run {
    const { fd, path } = this.newRunFile();
    const count = a.count + b.count;
    const sparse = new Uint32Array(Math.ceil(count / BLOCK_ENTRIES) * 2);
    const left = new RunCursor(a);
    const right = new RunCursor(b);
    const out = new Uint32Array(MERGE_ENTRIES * ENTRY_WORDS);
    const outBytes = Buffer.from(out.buffer);
    let buffered = 0;
    for (let written = 0; written < count; written++) {
      const takeLeft = right.done || (!left.done && compare(left.word(0), left.word(1), right.word(0), right.word(1)) < 0);
      const from = takeLeft ? left : right;
      for (let w = 0; w < ENTRY_WORDS; w++) out[buffered * ENTRY_WORDS + w] = from.word(w);
      if (written % BLOCK_ENTRIES === 0) {
        sparse[(written / BLOCK_ENTRIES) * 2] = from.word(0);
        sparse[(written / BLOCK_ENTRIES) * 2 + 1] = from.word(1);
      }
      from.advance();
      if (++buffered === MERGE_ENTRIES || written === count - 1) {
        writeFully(fd, outBytes, buffered * ENTRY_BYTES, (written + 1 - buffered) * ENTRY_BYTES);
        buffered = 0;
      }
    }
    return { fd, path, count, sparse };
  }

  /** Half again the keys spilled, or the input's expected keys and a tenth more (filterKeysFor). */
  private neededFilterKeys(): number {
    return Math.ceil(Math.max(this.spilled * 1.5, this.filterKeysFor(this.expectedKeys() ?? 0)));
  }

  /**
   * As many keys as the budget leaves beside the table, which the filter takes when that is more than it
   * needs: its rarer false "maybes" save block reads, and memory stays the same from small inputs to large ones.
   */
  private spareFilterKeys(): number {
    // Without a budget there is no room to hand out: the filter is what its keys need.
    if (this.memoryBudgetBytes === Infinity) return 0;
    return Bloom.capacityWithin(this.memoryBudgetBytes - slotsFor(this.limit) * ENTRY_BYTES);
  }

  /** The input's expected keys and a tenth more, at most 40 times the table's keys or those spilled (an early guess can be far off). */
  private filterKeysFor(expected: number): number {
    return Math.min(expected * 1.1, Math.max(this.spilled, this.memoryKeys) * 40);
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
    readFully(run.fd, this.block, n * ENTRY_BYTES, first * ENTRY_BYTES);
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

/** The slots of a KeyTable that holds `keys` without doubling (it doubles past 70% full). */
function slotsFor(keys: number): number {
  let slots = 16;
  while (keys * 10 > slots * 7) slots *= 2;
  return slots;
}

const readFully = (fd: number, into: Buffer, bytes: number, position: number): void => readFullyFrom(fd, into, bytes, position, 'key run file');

/** A run's entries in order, read MERGE_ENTRIES at a time (for a merge). */
class RunCursor {
  private readonly bytes = Buffer.alloc(MERGE_ENTRIES * ENTRY_BYTES);
  private readonly words = new Uint32Array(this.bytes.buffer, this.bytes.byteOffset, MERGE_ENTRIES * ENTRY_WORDS);
  /** The run's entry number of the buffer's first entry, the entry at hand in it, and how many it holds. */
  private start = 0;
  private at = 0;
  private held = 0;

  constructor(private readonly run: Run) {
    this.fill();
  }

  get done(): boolean {
    return this.at === this.held;
  }

  /** Word w (0 hi, 1 lo, 2 content, 3 ordinal) of the entry at hand. */
  word(w: number): number {
    return this.words[this.at * ENTRY_WORDS + w]!;
  }

  advance(): void {
    if (++this.at === this.held) {
      this.start += this.held;
      this.fill();
    }
  }

  private fill(): void {
    this.held = Math.min(MERGE_ENTRIES, this.run.count - this.start);
    this.at = 0;
    if (this.held > 0) readFully(this.run.fd, this.bytes, this.held * ENTRY_BYTES, this.start * ENTRY_BYTES);
  }
}
