import { spillFolderPath, SPILL_PREFIXES } from '../shared/spill-folders.js';
import { contentHash, keyFingerprint } from './key-table.js';
import { SpillingKeyTable } from './spilling-key-table.js';
import { PositionIndex, describePosition } from './position-index.js';
import type { Accepted, Reason, RecordPosition } from './types.js';

/**
 * What a stage does with a source key seen again with other content: `reject` the later record (default;
 * the platform keeps the first), or let the `last-wins`: only the last occurrence of each key is sent,
 * at its own place in the input (for messages: its place in the channel's order).
 */
export const DUPLICATES_MODES = ['reject', 'last-wins'] as const;
export type DuplicatesMode = (typeof DUPLICATES_MODES)[number];

/** One line of the run folder's duplicates/<stage>.ndjson: a record not sent because of another with its key. */
export interface DuplicateLine {
  /** `duplicate`: the same content as the other (counted in duplicates); `superseded`: a later record with other content won (counted in skipped). */
  kind: 'duplicate' | 'superseded';
  file: string;
  line?: number;
  index: number;
  sourceKey: string;
  /** The record that is sent for this key. */
  of: RecordPosition;
  message: string;
}

export type DuplicateVerdict =
  | { kind: 'duplicate' | 'superseded'; line: DuplicateLine }
  /** reject mode, other content: the record is rejected with this reason. */
  | { kind: 'conflict'; reason: Reason };

/**
 * Tells, record by record, whether an accepted record's key was seen before in the stage (or, with
 * last-wins, appears again later). "The same content" means the same import item (its JSON, which
 * includes everything the platform would store): records that differ only in source fields the mapping
 * does not use are the same.
 *
 * Memory is bounded whatever the stage's size: keys beyond 350,000 are spilled to sorted files in
 * `spillDir` (SpillingKeyTable: 16 MiB up to about 11M keys, then 1 byte a further key), plus PositionIndex (usually a few
 * bytes per file). With last-wins, the first pass keeps only the records a later one supersedes (usually
 * none), and the key table is closed before the main pass. Ordinals are the 1-based numbers of the
 * records in the stage's input (every record, also rejected or skipped ones), noted in order with `note`.
 */
export class SourceDuplicates {
  private readonly table: SpillingKeyTable;
  private readonly positions = new PositionIndex();
  /** last-wins, first pass: each earlier record of a key seen again (ordinal, content, key hi, key lo). */
  private earlier: number[] = [];
  /** last-wins, main pass: each record a later one supersedes → that last record's ordinal, and whether the content is the same. */
  private readonly losers = new Map<number, { last: number; same: boolean }>();
  private prepared = false;

  constructor(
    readonly mode: DuplicatesMode,
    /** The stage's key field(s), for messages. */
    private readonly keyName: string,
    spillDir: string = spillFolderPath(SPILL_PREFIXES.keys),
    memoryKeys?: number,
    /** The input's expected number of keys, if known (sizes the spilled keys' filter: SpillingKeyTable). */
    expectedKeys?: () => number | undefined,
  ) {
    this.table = new SpillingKeyTable(spillDir, memoryKeys, expectedKeys);
  }

  /** Bytes the key table and position index hold now. */
  get bytes(): number {
    return this.table.bytes + this.positions.bytes;
  }

  /** Where a noted record is in the input (its file, line and index). */
  positionOf(ordinal: number): RecordPosition {
    return this.positions.at(ordinal);
  }

  /** Every record read, in order (before `check`). */
  note(ordinal: number, position: RecordPosition): void {
    if (!this.prepared) this.positions.note(ordinal, position);
  }

  /** last-wins, first pass over the input: every record's position, and each accepted record (its item's JSON). */
  noteInFirstPass(ordinal: number, position: RecordPosition, accepted: Accepted | undefined, json: string | undefined): void {
    this.positions.note(ordinal, position);
    if (accepted === undefined || json === undefined) return;
    const key = accepted.item.idempotencyKey;
    if (typeof key !== 'string') return;
    const [hi, lo] = keyFingerprint(key);
    const content = contentHash(json);
    const found = this.table.lookup(hi, lo);
    if (found === undefined) return this.table.insert(hi, lo, content, ordinal);
    this.earlier.push(found.ordinal, found.content, hi, lo);
    found.set(content, ordinal);
  }

  /** The first pass is over: each superseded record learns its key's last record, and the key table goes. */
  endFirstPass(): void {
    for (let i = 0; i < this.earlier.length; i += 4) {
      const last = this.table.lookup(this.earlier[i + 2]!, this.earlier[i + 3]!)!;
      this.losers.set(this.earlier[i]!, { last: last.ordinal, same: last.content === this.earlier[i + 1] });
    }
    this.earlier = [];
    this.table.close();
    this.prepared = true;
  }

  /** Removes the spilled keys' files. */
  close(): void {
    this.table.close();
  }

  /** Undefined: send the record. Otherwise what to do instead. `json`: the item's JSON, or its UTF-8 (the same fingerprint). */
  check(ordinal: number, accepted: Accepted, json: string | Uint8Array): DuplicateVerdict | undefined {
    const key = accepted.item.idempotencyKey;
    if (typeof key !== 'string') return undefined;
    if (this.mode === 'last-wins') {
      // The last occurrence is sent (also a key the first pass did not see: it cannot happen).
      const loser = this.losers.get(ordinal);
      if (loser === undefined) return accepted.supersededBy && this.supersededInAnotherShard(accepted, accepted.supersededBy);
      const other = this.positions.at(loser.last);
      if (loser.same)
        return this.skip('duplicate', accepted, other, `key ${JSON.stringify(accepted.sourceKey)} appears again at ${describePosition(other)} with the same content; that record is sent, this one is counted as a duplicate`);
      return this.skip('superseded', accepted, other, `key ${JSON.stringify(accepted.sourceKey)} appears again at ${describePosition(other)} with other content; the later record wins (duplicates: last-wins), this one is skipped`);
    }
    const [hi, lo] = keyFingerprint(key);
    const content = contentHash(json);
    const found = this.table.lookup(hi, lo);
    if (found === undefined) {
      this.table.insert(hi, lo, content, ordinal);
      return undefined;
    }
    const first = this.positions.at(found.ordinal);
    if (found.content === content)
      return this.skip('duplicate', accepted, first, `key ${JSON.stringify(accepted.sourceKey)} was seen before at ${describePosition(first)} with the same content: a duplicate of it, not sent again`);
    const where = describePosition(first);
    return {
      kind: 'conflict',
      reason: {
        field: '',
        sourceField: this.keyName,
        expected: 'a source key not seen before in this stage, or the same content as its first record',
        found: `key ${JSON.stringify(accepted.sourceKey)}, first seen at ${where} with other content`,
        message: `key ${JSON.stringify(accepted.sourceKey)} (${this.keyName}) was first seen at ${where} with other content; the first record is the one imported. Fix the source, or set options.duplicates: last-wins to import the later one`,
      },
    };
  }

  private supersededInAnotherShard(accepted: Accepted, other: RecordPosition): DuplicateVerdict {
    return this.skip('superseded', accepted, other, `key ${JSON.stringify(accepted.sourceKey)} appears again at ${describePosition(other)}, in a channel another shard imports; the later record wins (duplicates: last-wins), this one is skipped`);
  }

  private skip(kind: 'duplicate' | 'superseded', accepted: Accepted, of: RecordPosition, message: string): DuplicateVerdict {
    const { position } = accepted;
    const line: DuplicateLine = { kind, file: position.file, ...(position.line === undefined ? {} : { line: position.line }), index: position.index, sourceKey: accepted.sourceKey, of, message };
    return { kind, line };
  }
}
