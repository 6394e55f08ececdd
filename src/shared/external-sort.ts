import { closeSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFully } from './positioned-io.js';
import { makeSpillFolder, SPILL_PREFIXES } from './spill-folders.js';

/** What the values held in memory may take (their estimated heap bytes and per-entry overhead) before a run is spilled. */
export const DEFAULT_SORT_BUDGET_BYTES = 32 * 1024 * 1024;
/** Runs of one level merged into one of the next: bounds the files open in a merge and the passes over the data. */
const FAN_IN = 16;
/** Counted per entry besides its text: the entry object and its slot in the array. */
const ENTRY_OVERHEAD = 48;
const WRITE_BUFFER_BYTES = 1 << 20;
const READ_BUFFER_BYTES = 64 * 1024;
/** A run file's entry: key (float64), text length in bytes (uint32), then the UTF-8 text. */
const HEADER_BYTES = 12;

/** A run file's entry (values are encoded only when they go to disk). */
interface Entry {
  key: number;
  text: string;
}

/** An entry held in memory: the value itself. */
interface Held<T> {
  key: number;
  value: T;
}

/**
 * How the sort keeps values: what one is estimated to take in memory (counted against the budget without
 * serializing it), and its text in a run file. Values held in memory are handed back as they were added;
 * only spilled ones are encoded and decoded.
 */
export interface SortCodec<T> {
  sizeOf(value: T): number;
  encode(value: T): string;
  decode(text: string): T;
}

/** Texts: as they are, two bytes a UTF-16 unit. */
export const TEXT_CODEC: SortCodec<string> = { sizeOf: (text) => 2 * text.length, encode: (text) => text, decode: (text) => text };

/**
 * A JSON value's heap bytes, roughly (strings two bytes a unit, a slot or header per value): a walk over
 * it, much cheaper than the JSON text it stands in for.
 */
export function estimatedJsonBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + 2 * value.length;
  if (value === null || typeof value !== 'object') return 16;
  let bytes = 32;
  if (Array.isArray(value)) {
    for (const item of value as unknown[]) bytes += 8 + estimatedJsonBytes(item);
    return bytes;
  }
  for (const key in value) if (Object.hasOwn(value, key)) bytes += 16 + estimatedJsonBytes((value as Record<string, unknown>)[key]);
  return bytes;
}

/** Plain JSON values: JSON text in a run file. */
export const JSON_CODEC: SortCodec<unknown> = { sizeOf: estimatedJsonBytes, encode: (value) => JSON.stringify(value), decode: (text) => JSON.parse(text) as unknown };

interface Run {
  path: string;
  level: number;
}

/**
 * Values sorted by a number key, equal keys in the order they were added (a stable external sort), in
 * memory bounded by `budgetBytes` whatever the input's size: below the budget nothing touches the disk and
 * nothing is serialized (the values are sorted as they are); past it each budget's worth is sorted,
 * encoded and written to a run file (in a folder of its own under `baseDir`, made on the first spill), runs
 * are merged FAN_IN at a time as they pile up, and the rest merged as the result is read, the values still
 * in memory last on equal keys. Ties stay in order because runs are only ever merged with their neighbours
 * and a merge takes the earlier run's entry first.
 */
export class ExternalSort<T = string> {
  private entries: Array<Held<T>> = [];
  private held = 0;
  private readonly runs: Run[] = [];
  private dir: string | undefined;
  private made = 0;

  constructor(
    private readonly budgetBytes = DEFAULT_SORT_BUDGET_BYTES,
    private readonly baseDir = tmpdir(),
    private readonly codec: SortCodec<T> = TEXT_CODEC as unknown as SortCodec<T>,
  ) {}

  /** Whether any run went to disk (for tests and reports). */
  get spilled(): boolean {
    return this.runs.length > 0;
  }

  add(key: number, value: T): void {
    this.entries.push({ key, value });
    this.held += ENTRY_OVERHEAD + this.codec.sizeOf(value);
    if (this.held > this.budgetBytes) this.spill();
  }

  /** Every value added, by key (equal keys as added). Read once; close() after. */
  *sorted(): Generator<T> {
    const memory = this.takeSorted();
    let i = 0;
    if (this.runs.length > 0) {
      // Those still in memory were added after every spilled one: on equal keys the runs' come first.
      for (const e of mergeEntries(this.runs.map((r) => r.path))) {
        for (; i < memory.length && memory[i]!.key < e.key; i++) yield memory[i]!.value;
        yield this.codec.decode(e.text);
      }
    }
    for (; i < memory.length; i++) yield memory[i]!.value;
  }

  /** Removes the run files (safe to call more than once, and before sorted() ends). */
  close(): void {
    this.entries = [];
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  private takeSorted(): Array<Held<T>> {
    const entries = this.entries;
    this.entries = [];
    this.held = 0;
    // Array.prototype.sort is stable: equal keys keep the order they were added.
    return entries.sort((a, b) => a.key - b.key);
  }

  private spill(): void {
    this.writeRun(encoded(this.takeSorted(), this.codec), 0);
    this.mergeFullLevels();
  }

  private writeRun(entries: Iterable<Entry>, level: number): void {
    const path = this.nextPath();
    writeRunFile(path, entries);
    this.runs.push({ path, level });
  }

  /** While the last FAN_IN runs are of one level, merges them into one run of the next level. */
  private mergeFullLevels(): void {
    for (;;) {
      const tail = this.runs.slice(-FAN_IN);
      const level = tail[0]?.level;
      if (tail.length < FAN_IN || tail.some((r) => r.level !== level)) return;
      this.runs.length -= FAN_IN;
      const paths = tail.map((r) => r.path);
      this.writeRun(mergeEntries(paths), level! + 1);
      for (const path of paths) rmSync(path, { force: true });
    }
  }

  private nextPath(): string {
    this.dir ??= makeSpillFolder(SPILL_PREFIXES.postSort, this.baseDir);
    return join(this.dir, `run-${this.made++}`);
  }
}

/** Held values as a run file's entries, each encoded as it is written. */
function* encoded<T>(entries: Iterable<Held<T>>, codec: SortCodec<T>): Generator<Entry> {
  for (const { key, value } of entries) yield { key, text: codec.encode(value) };
}

/** The entries of sorted runs in key order, an earlier run's first on equal keys (a heap of cursors). */
function* mergeEntries(paths: string[]): Generator<Entry> {
  const cursors = paths.map((path, order) => new RunCursor(path, order));
  try {
    const heap = new CursorHeap(cursors.filter((c) => c.entry !== undefined));
    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      yield top.entry!;
      top.advance();
      if (top.entry === undefined) heap.pop();
      else heap.siftDown(0);
    }
  } finally {
    for (const c of cursors) c.close();
  }
}

function writeRunFile(path: string, entries: Iterable<Entry>): void {
  const fd = openSync(path, 'w');
  try {
    let buffer = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
    let used = 0;
    let written = 0;
    const flush = () => {
      writeFully(fd, buffer, used, written);
      written += used;
      used = 0;
    };
    for (const { key, text } of entries) {
      const bytes = Buffer.byteLength(text);
      if (used + HEADER_BYTES + bytes > buffer.length) {
        flush();
        if (HEADER_BYTES + bytes > buffer.length) buffer = Buffer.allocUnsafe(HEADER_BYTES + bytes);
      }
      buffer.writeDoubleLE(key, used);
      buffer.writeUInt32LE(bytes, used + 8);
      buffer.write(text, used + HEADER_BYTES, 'utf8');
      used += HEADER_BYTES + bytes;
    }
    flush();
  } finally {
    closeSync(fd);
  }
}

/** A run file read in order, READ_BUFFER_BYTES at a time; `entry` is the one at hand (undefined at the end). */
class RunCursor {
  entry: Entry | undefined;
  private buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  private start = 0;
  private end = 0;
  private readonly fd: number;

  constructor(
    path: string,
    readonly order: number,
  ) {
    this.fd = openSync(path, 'r');
    this.advance();
  }

  advance(): void {
    if (!this.ensure(HEADER_BYTES)) {
      this.entry = undefined;
      return;
    }
    const key = this.buffer.readDoubleLE(this.start);
    const bytes = this.buffer.readUInt32LE(this.start + 8);
    this.start += HEADER_BYTES;
    if (!this.ensure(bytes)) throw new Error('a sort run file ended inside an entry');
    this.entry = { key, text: this.buffer.toString('utf8', this.start, this.start + bytes) };
    this.start += bytes;
  }

  close(): void {
    closeSync(this.fd);
  }

  /** At least `bytes` unread bytes in the buffer (moved to its front, grown if need be); false at the file's end. */
  private ensure(bytes: number): boolean {
    if (this.end - this.start >= bytes) return true;
    const kept = this.end - this.start;
    const target = bytes > this.buffer.length ? Buffer.allocUnsafe(bytes) : this.buffer;
    this.buffer.copy(target, 0, this.start, this.end);
    this.buffer = target;
    this.start = 0;
    this.end = kept;
    while (this.end < bytes) {
      const got = readSync(this.fd, this.buffer, this.end, this.buffer.length - this.end, null);
      if (got === 0) return false;
      this.end += got;
    }
    return true;
  }
}

/** A binary min-heap of cursors by (entry key, run order). */
class CursorHeap {
  constructor(private readonly items: RunCursor[]) {
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  peek(): RunCursor | undefined {
    return this.items[0];
  }

  pop(): void {
    const last = this.items.pop()!;
    if (this.items.length === 0) return;
    this.items[0] = last;
    this.siftDown(0);
  }

  siftDown(i: number): void {
    const { items } = this;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < items.length && before(items[l]!, items[least]!)) least = l;
      if (r < items.length && before(items[r]!, items[least]!)) least = r;
      if (least === i) return;
      [items[i], items[least]] = [items[least]!, items[i]!];
      i = least;
    }
  }
}

function before(a: RunCursor, b: RunCursor): boolean {
  const d = a.entry!.key - b.entry!.key;
  return d < 0 || (d === 0 && a.order < b.order);
}
