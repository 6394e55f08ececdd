import { KeyTable, keyFingerprint, textHash } from './key-table.js';
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
 * Memory: KeyTable (about 32 bytes per distinct key) plus PositionIndex (usually a few bytes per file).
 * Ordinals are the 1-based numbers of the records in the stage's input (every record, also rejected or
 * skipped ones), noted in order with `note`.
 */
export class SourceDuplicates {
  private readonly table = new KeyTable();
  private readonly positions = new PositionIndex();
  /** last-wins: the first pass noted every position and each key's last occurrence. */
  private prepared = false;

  constructor(
    readonly mode: DuplicatesMode,
    /** The stage's key field(s), for messages. */
    private readonly keyName: string,
  ) {}

  /** Bytes the key table and position index hold now. */
  get bytes(): number {
    return this.table.bytes + this.positions.bytes;
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
    const slot = this.table.find(hi, lo);
    if (slot === -1) this.table.insert(hi, lo, textHash(json), ordinal);
    else this.table.update(slot, textHash(json), ordinal);
  }

  /** The first pass is over: the main pass only asks `check`. */
  endFirstPass(): void {
    this.prepared = true;
  }

  /** Undefined: send the record. Otherwise what to do instead. */
  check(ordinal: number, accepted: Accepted, json: string): DuplicateVerdict | undefined {
    const key = accepted.item.idempotencyKey;
    if (typeof key !== 'string') return undefined;
    const [hi, lo] = keyFingerprint(key);
    const content = textHash(json);
    const slot = this.table.find(hi, lo);
    if (this.mode === 'last-wins') {
      // The last occurrence is sent; a key the first pass did not see (it cannot happen) is sent too.
      const last = slot === -1 ? ordinal : this.table.ordinalAt(slot);
      if (last <= ordinal) return undefined;
      const other = this.positions.at(last);
      if (this.table.contentAt(slot) === content)
        return this.skip('duplicate', accepted, other, `key ${JSON.stringify(accepted.sourceKey)} appears again at ${describePosition(other)} with the same content; that record is sent, this one is counted as a duplicate`);
      return this.skip('superseded', accepted, other, `key ${JSON.stringify(accepted.sourceKey)} appears again at ${describePosition(other)} with other content; the later record wins (duplicates: last-wins), this one is skipped`);
    }
    if (slot === -1) {
      this.table.insert(hi, lo, content, ordinal);
      return undefined;
    }
    const first = this.positions.at(this.table.ordinalAt(slot));
    if (this.table.contentAt(slot) === content)
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

  private skip(kind: 'duplicate' | 'superseded', accepted: Accepted, of: RecordPosition, message: string): DuplicateVerdict {
    const { position } = accepted;
    const line: DuplicateLine = { kind, file: position.file, ...(position.line === undefined ? {} : { line: position.line }), index: position.index, sourceKey: accepted.sourceKey, of, message };
    return { kind, line };
  }
}
