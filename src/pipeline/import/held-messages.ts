/**
 * The messages the platform held before the run, for the messages stage's comparison (held-records.ts), in
 * bounded memory whatever their number (issue 12): a re-run over 10 million held messages must not keep
 * their bodies in memory, nor write them as one JSON text.
 *
 * Each held message is one line of `<run>/held/messages/lines.tsv` (its key as a JSON string, a tab, then
 * `{id, fields}` as lossless JSON), written as its page is read; `offsets.bin` gives each line's end (8
 * bytes a line). Both are written in `held/messages.partial/` and that folder renamed once complete, so a
 * resumed run reuses a whole snapshot or reads the platform again, never half of one. The complete file is
 * then read once more to index its keys in a SpillingKeyTable (key fingerprint → line number; bounded,
 * spilled to `held/messages-keys/`), the same way for a first attempt and a resumed one; the line read back
 * names its key, so a fingerprint shared by two keys never takes one for the other. With `otherKeyOf`, a
 * second table indexes the same lines by that part of their key (held-message-copies.ts: the message's key without
 * its channel, so a message the source moved to another channel is found where the platform holds it; or
 * a Mattermost post's slot, so one edited since is found under its earlier text's key);
 * it costs as much again (bounded the same way, spilled to `held/messages-other-keys/`).
 */
import { closeSync, createReadStream, fstatSync, fsyncSync, openSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Int64 } from '../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import { readFully as readFullyFrom, writeFully } from '../../shared/positioned-io.js';
import { SpillingKeyTable, textFingerprint } from '../../transform/index.js';

/** A held record: its id and the fields compared (compare-existing.ts). */
export interface HeldCopy {
  id: Int64;
  fields: Record<string, unknown>;
}

export interface HeldMessagesOptions {
  /** Keys kept in memory before the key table spills (SpillingKeyTable's default; tests make it small). */
  memoryKeys?: number;
  /** A key's 64-bit fingerprint (tests make keys collide). */
  fingerprint?: (key: string) => [number, number];
  /** The part of a key a second index finds lines by (`findByOther`); none when absent. */
  otherKeyOf?: (key: string) => string;
  /**
   * The second index keeps every line of a part held more than once (`findAllByOther`), those beyond the
   * first in memory: for parts few lines share (a Mattermost post's slot), not for every key.
   */
  everyOtherLine?: boolean;
}

/** Line writes gathered before one write call. */
const WRITE_BUFFER_BYTES = 1 << 20;
/** A key table entry's content when its key was found twice: it is not compared. */
const TWICE = 1;


/**
 * Opens the run's held-messages snapshot: the complete one an earlier attempt wrote, else a new one of what
 * `read` yields (key, message), in order. A key yielded twice is held twice and never found.
 */
export async function openHeldMessages(heldDir: string, read: () => AsyncIterable<[string, HeldCopy]>, options: HeldMessagesOptions = {}): Promise<HeldMessages> {
  const complete = join(heldDir, 'messages');
  const spillDirs = { keys: join(heldDir, 'messages-keys'), other: join(heldDir, 'messages-other-keys') };
  for (const dir of Object.values(spillDirs)) await rm(dir, { recursive: true, force: true });
  if (!(await isFolder(complete))) await writeSnapshot(join(heldDir, 'messages.partial'), complete, read);
  return reopenSnapshot(complete, spillDirs, options);
}

/** A complete snapshot, its keys indexed from its lines (a key found twice is marked then). */
async function reopenSnapshot(folder: string, spillDirs: { keys: string; other: string }, options: HeldMessagesOptions): Promise<HeldMessages> {
  const lines = new LineReader(folder);
  const index = new KeyIndex(spillDirs.keys, lines, options, lines.count);
  const { otherKeyOf } = options;
  const other = otherKeyOf && new KeyIndex(spillDirs.other, lines, options, lines.count, otherKeyOf, options.everyOtherLine === true);
  const held = new HeldMessages(lines, index, other);
  try {
    const reader = createInterface({ input: createReadStream(join(folder, LINES)), crlfDelay: Infinity });
    let ordinal = 0;
    for await (const line of reader) {
      const key = JSON.parse(line.slice(0, line.indexOf('\t'))) as string;
      index.add(key, ordinal);
      other?.add(otherKeyOf!(key), ordinal);
      ordinal++;
    }
  } catch (error) {
    held.close();
    throw error;
  }
  return held;
}

/** Writes the messages as read into `partial`, then renames it `complete`: a run stopped part way leaves no snapshot to be taken for whole. */
async function writeSnapshot(partial: string, complete: string, read: () => AsyncIterable<[string, HeldCopy]>): Promise<void> {
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const lines = new LineWriter(partial);
  try {
    for await (const [key, message] of read()) lines.append(key, stringifyJson(message));
    lines.finish();
  } finally {
    lines.close();
  }
  await rename(partial, complete);
}

export class HeldMessages {
  constructor(
    private readonly lines: LineReader,
    private readonly index: KeyIndex,
    private readonly other?: KeyIndex,
  ) {}

  /** The message held once under this key, or undefined (not held, or held twice). */
  find(key: string): HeldCopy | undefined {
    const found = this.lineOf(this.index, key);
    return found === undefined || found.twice ? undefined : found.copy;
  }

  /** Whether any message is held under this key, once or twice. */
  holds(key: string): boolean {
    return this.lineOf(this.index, key) !== undefined;
  }

  /** The first message held under a key whose `otherKeyOf` part is `other`, with its whole key (undefined without that index). */
  findByOther(other: string): { key: string; copy: HeldCopy } | undefined {
    const found = this.other && this.lineOf(this.other, other);
    return found && { key: found.key, copy: found.copy };
  }

  /** Every message held under a key whose `otherKeyOf` part is `other`, in the snapshot's order (`everyOtherLine`; else the first). */
  findAllByOther(other: string): Array<{ key: string; copy: HeldCopy }> {
    if (!this.other) return [];
    const first = this.lineOf(this.other, other);
    if (first === undefined) return [];
    const more = this.other.laterLines(other).map((ordinal) => this.lines.read(ordinal));
    return [{ key: first.key, copy: first.copy }, ...more.map((line) => ({ key: line.key, copy: parseJsonExact(line.rest, 'bigint') as HeldCopy }))];
  }

  /**
   * The key of the message held next after this key's (first) line, in the order its channel lists them,
   * or undefined at the snapshot's end or for a key not held. Lines are written channel by channel, so a
   * next key of another channel means none follows in this one.
   */
  nextKey(key: string): string | undefined {
    const found = this.index.find(key);
    if (found === undefined || found.ordinal + 1 >= this.lines.count || this.lines.read(found.ordinal).key !== key) return undefined;
    return this.lines.read(found.ordinal + 1).key;
  }

  /** Closes the files and removes the key tables' spilled runs (the snapshot stays for a resumed run). */
  close(): void {
    this.lines.close();
    this.index.close();
    this.other?.close();
  }

  private lineOf(index: KeyIndex, key: string): { key: string; copy: HeldCopy; twice: boolean } | undefined {
    const found = index.find(key);
    if (found === undefined) return undefined;
    const line = this.lines.read(found.ordinal);
    // Another key of the same fingerprint: this one is not held.
    if (index.keyOf(line.key) !== key) return undefined;
    return { key: line.key, copy: parseJsonExact(line.rest, 'bigint') as HeldCopy, twice: found.twice };
  }
}

/**
 * Held keys (or `keyOf` parts of them) → line numbers: a SpillingKeyTable of fingerprints, and the few keys
 * whose fingerprint another took first. A key found again is marked held twice; its first line is kept.
 */
class KeyIndex {
  private readonly table: SpillingKeyTable;
  private readonly fingerprint: (key: string) => [number, number];
  /** Keys whose fingerprint an earlier key has (next to never at 64 bits): their first line, and whether held twice. */
  private readonly collided = new Map<string, { ordinal: number; twice: boolean }>();
  /** `keepAll`: the lines of a key after its first. */
  private readonly later = new Map<string, number[]>();

  constructor(
    spillDir: string,
    private readonly lines: LineReader,
    options: HeldMessagesOptions,
    expectedKeys?: number,
    /** What of a line's key this index goes by. */
    readonly keyOf: (lineKey: string) => string = (lineKey) => lineKey,
    private readonly keepAll = false,
  ) {
    this.table = new SpillingKeyTable(spillDir, options.memoryKeys, () => expectedKeys);
    this.fingerprint = options.fingerprint ?? textFingerprint;
  }

  add(key: string, ordinal: number): void {
    const collided = this.collided.get(key);
    if (collided) {
      collided.twice = true;
      return this.noteLater(key, ordinal);
    }
    const [hi, lo] = this.fingerprint(key);
    const found = this.table.lookup(hi, lo);
    // The table's ordinals start at 1.
    if (found === undefined) return this.table.insert(hi, lo, 0, ordinal + 1);
    // The line read back says whether this is the same key again or another of its fingerprint.
    if (this.keyOf(this.lines.read(found.ordinal - 1).key) !== key) return void this.collided.set(key, { ordinal, twice: false });
    found.set(TWICE, found.ordinal);
    this.noteLater(key, ordinal);
  }

  /** The lines of a key after its first (`keepAll`), in order. */
  laterLines(key: string): number[] {
    return this.later.get(key) ?? [];
  }

  private noteLater(key: string, ordinal: number): void {
    if (this.keepAll) (this.later.get(key) ?? this.later.set(key, []).get(key)!).push(ordinal);
  }

  /** The first line of a key, and whether it is held twice; or of another key of its fingerprint (the caller compares the line's key). */
  find(key: string): { ordinal: number; twice: boolean } | undefined {
    const collided = this.collided.get(key);
    if (collided !== undefined) return collided;
    const found = this.table.lookup(...this.fingerprint(key));
    return found === undefined ? undefined : { ordinal: found.ordinal - 1, twice: found.content === TWICE };
  }

  close(): void {
    this.table.close();
  }
}

const LINES = 'lines.tsv';
const OFFSETS = 'offsets.bin';

/** Lines appended through a buffer; `offsets.bin` gets each line's end (8 bytes a line). */
class LineWriter {
  private readonly linesFd: number;
  private readonly offsetsFd: number;
  private readonly buffer = Buffer.alloc(WRITE_BUFFER_BYTES);
  private buffered = 0;
  private readonly ends: number[] = [];
  /** Bytes of lines written or buffered. */
  private end = 0;
  private endsWritten = 0;

  constructor(folder: string) {
    this.linesFd = openSync(join(folder, LINES), 'w');
    this.offsetsFd = openSync(join(folder, OFFSETS), 'w');
  }

  /** Appends `key` (as a JSON string: no tab or newline in it), a tab and `rest` (JSON too). */
  append(key: string, rest: string): void {
    const line = `${JSON.stringify(key)}\t${rest}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.buffered + bytes > this.buffer.length) this.flush();
    this.end += bytes;
    this.ends.push(this.end);
    if (bytes > this.buffer.length) writeFully(this.linesFd, Buffer.from(line), bytes, this.end - bytes);
    else this.buffered += this.buffer.write(line, this.buffered);
  }

  /** Writes what is buffered and syncs both files: the folder is renamed complete next. */
  finish(): void {
    this.flush();
    fsyncSync(this.linesFd);
    fsyncSync(this.offsetsFd);
  }

  close(): void {
    closeSync(this.linesFd);
    closeSync(this.offsetsFd);
  }

  private flush(): void {
    writeFully(this.linesFd, this.buffer, this.buffered, this.end - this.buffered);
    this.buffered = 0;
    const ends = Buffer.alloc(this.ends.length * 8);
    this.ends.forEach((end, i) => ends.writeDoubleLE(end, i * 8));
    writeFully(this.offsetsFd, ends, ends.length, this.endsWritten * 8);
    this.endsWritten += this.ends.length;
    this.ends.length = 0;
  }
}

/** A complete snapshot's lines by number: line i is the bytes from line i-1's end to its own, newline aside. */
class LineReader {
  private readonly linesFd: number;
  private readonly offsetsFd: number;
  readonly count: number;

  constructor(folder: string) {
    this.linesFd = openSync(join(folder, LINES), 'r');
    this.offsetsFd = openSync(join(folder, OFFSETS), 'r');
    this.count = fstatSync(this.offsetsFd).size / 8;
  }

  read(ordinal: number): { key: string; rest: string } {
    const ends = Buffer.alloc(16);
    if (ordinal > 0) readFully(this.offsetsFd, ends, 16, (ordinal - 1) * 8);
    else readFully(this.offsetsFd, ends, 8, 0, 8);
    const start = ends.readDoubleLE(0);
    const line = Buffer.alloc(ends.readDoubleLE(8) - start - 1);
    readFully(this.linesFd, line, line.length, start);
    const text = line.toString('utf8');
    const tab = text.indexOf('\t');
    return { key: JSON.parse(text.slice(0, tab)) as string, rest: text.slice(tab + 1) };
  }

  close(): void {
    closeSync(this.linesFd);
    closeSync(this.offsetsFd);
  }
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}

const readFully = (fd: number, into: Buffer, bytes: number, position: number, at = 0): void => readFullyFrom(fd, into, bytes, position, 'held messages snapshot', at);
