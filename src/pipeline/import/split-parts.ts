import { isNotFoundError, type ChatportClient } from '../../api/index.js';
import { PART_PROPERTY, type Accepted, type DuplicateVerdict, type Reason } from '../../transform/index.js';
import { LIMITS } from '../../wire/imports.js';
import type { HeldCopy } from './held-messages.js';

/**
 * `longBodies: split`: a held message whose source now takes another number of parts (docs/identity.md
 * "Updates"). Fewer: the held parts beyond the source's count (`<key>#n`) are no source record's; the
 * record's first part finds them, `mode: upsert` deletes them, then patches the first part, and insert
 * lists them, not applied. More: the platform only appends, so the added parts are sent only where they
 * land in place (no later message held in the channel); otherwise the record is rejected, all its parts,
 * and insert sends none of them (changed, not applied).
 */

/** A held part of no source record: its key (the record's key with `#n`), its look-up key among the held messages, and the platform's id. */
export interface SurplusPart {
  sourceKey: string;
  heldKey: string;
  id: HeldCopy['id'];
}

/** What the platform holds of a split record, by its first part. */
export interface HeldParts {
  /** How many parts the platform holds (1 for a message held whole). */
  held: number;
  /** The source's count of parts. */
  source: number;
  /** The held parts beyond the source's count, in order of their index. */
  surplus: SurplusPart[];
  /** The look-up key of the last held part. */
  lastKey: string;
}

/** `chatportPart` of a message's properties (item or held copy): its index and count, or one part of one. */
function partOf(properties: unknown): { index: number; count: number } {
  const part = (properties as Record<string, unknown> | undefined)?.[PART_PROPERTY] as { index?: unknown; count?: unknown } | undefined;
  return { index: numberOr1(part?.index), count: numberOr1(part?.count) };
}

/** A snapshot keeps numbers losslessly: small integers as numbers, big ones as bigint. */
const numberOr1 = (value: unknown): number => (typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : 1);

/**
 * The parts the platform holds of the record whose first part this is (`heldKey` its look-up key,
 * `sourceKey` its source key), undefined for a later part: `<key>#2`, `#3`, … while held and marked as
 * that part (`chatportPart.index`), not a record whose own source key ends in `#n`. Not by the count the
 * platform's first part names, which an older version patched while leaving the surplus parts.
 */
export function heldPartsOf(item: Record<string, unknown>, sourceKey: string, heldKey: string, find: (key: string) => HeldCopy | undefined): HeldParts | undefined {
  const source = partOf(item.properties);
  if (source.index !== 1) return undefined;
  const surplus: SurplusPart[] = [];
  let held = 1;
  for (let n = 2; ; n++) {
    const part = find(`${heldKey}#${n}`);
    if (!part || partOf(part.fields.properties).index !== n) break;
    held = n;
    if (n > source.count) surplus.push({ sourceKey: `${sourceKey}#${n}`, heldKey: `${heldKey}#${n}`, id: part.id });
  }
  return { held, source: source.count, surplus, lastKey: held === 1 ? heldKey : `${heldKey}#${held}` };
}

/**
 * Whether a record's own source key (not a later part's) has the shape of a part's, `<key>#n`: such a held
 * message is that record's copy (the same key, the same idempotency key), never another record's surplus part.
 */
export function claimsPartKey(item: Record<string, unknown>, sourceKey: string): boolean {
  return partOf(item.properties).index === 1 && /#\d+$/.test(sourceKey);
}

/**
 * Deletes the parts, last first: a run stopped part way leaves the first ones, which the next run finds
 * from the same index on. One already gone (an earlier attempt's delete, whose answer a kill lost, with a
 * resumed run comparing with the same snapshot) counts as deleted. `before` journals each part before its
 * delete is sent: a resumed run's snapshot still holds it.
 */
export async function deleteSurplusParts(client: ChatportClient, parts: readonly SurplusPart[], signal: AbortSignal, before: (part: SurplusPart) => Promise<void>): Promise<void> {
  for (const part of [...parts].reverse()) {
    await before(part);
    try {
      await client.messages.delete(part.id, { signal });
    } catch (error) {
      if (!isNotFoundError(error)) throw error;
    }
  }
}

/**
 * Why a record whose held copy this run deleted as a surplus part is rejected: the source changed back
 * before a resume, or the record's own key is `<key>#n` and the record `<key>` came first. The snapshot
 * still holds it, and its key stays used.
 */
export function deletedPartReason(id: HeldCopy['id']): Reason {
  return {
    field: 'body',
    expected: `a message the platform holds: message ${id} of this key was deleted by this run (this attempt or an earlier one), as a part beyond its record's count of parts`,
    found: 'a record of this key',
    message:
      `body: this run deleted message ${id}, the platform's copy of this key, as a part beyond its record's count of parts (an earlier attempt's source, or an earlier record whose key this one extends with #n); ` +
      `a deleted message's key stays used, so it is not sent again. Give the record a new key to import its body again`,
  };
}

/** Why a record corrected to more parts than the platform holds, with later messages after them, is rejected. */
export function addedPartsReason({ held, source }: HeldParts): Reason {
  return {
    field: 'body',
    expected: `at most ${held} part(s), as the platform holds the message: later messages of its channel follow them`,
    found: `${source} parts`,
    message:
      `body: the source's body now takes ${source} parts and the platform holds ${held}, followed by later messages of the channel; ` +
      `the platform only appends, so the added parts would land at the channel's end. Keep the body within ${held} part(s) ` +
      `(${held * LIMITS.bodyLength} characters at most), or delete the message's parts on the platform and give the record a new key`,
  };
}

/**
 * The later parts of a record whose first part was settled with more parts than held (they follow it in
 * the stage): rejected with it (upsert, not placeable), or, beyond the held ones, not sent (insert).
 */
export class AddedParts {
  private first?: { sourceKey: string; held: number; reasons?: Reason[] };

  /** The first part's outcome: `reasons` when it was rejected, else the later parts beyond `held` are changed, not applied. */
  note(sourceKey: string, held: number, reasons?: Reason[]): void {
    this.first = { sourceKey, held, ...(reasons ? { reasons } : {}) };
  }

  /**
   * A later part of the noted record: rejected with it, changed (beyond the held parts), or `compare` (a held
   * part, settled as any record). Undefined for any other record, which ends the noted record's parts.
   */
  laterPart(record: Accepted): { kind: 'conflict'; reasons: Reason[] } | { kind: 'changed' } | { kind: 'compare' } | undefined {
    const { first } = this;
    const { index } = partOf(record.item.properties);
    if (first === undefined || index === 1 || record.sourceKey !== `${first.sourceKey}#${index}`) {
      this.first = undefined;
      return undefined;
    }
    if (first.reasons) return { kind: 'conflict', reasons: first.reasons.map((r) => ({ ...r, message: `part ${index} of source key ${first.sourceKey}, rejected with its first part: ${r.message}` })) };
    return index > first.held ? { kind: 'changed' } : { kind: 'compare' };
  }
}

/**
 * The duplicate check settles each part by its own key, yet a record's parts go together: the later parts
 * of a record whose first part it rejected or skipped get the same verdict, also a part no other record
 * has the key of (beyond the other record's count of parts), which would otherwise be sent alone.
 */
export class DuplicateParts {
  private first?: { sourceKey: string; keys: ReadonlySet<string>; verdict: DuplicateVerdict };

  /** The verdict for this record: its own, or, for a later part of a record the check did not let through, the first part's. */
  verdictOf(record: Accepted, own: DuplicateVerdict | undefined): DuplicateVerdict | undefined {
    const { first } = this;
    if (first?.keys.has(record.sourceKey)) return own ?? partVerdict(first, record.sourceKey);
    this.first = own !== undefined && record.parts?.length ? { sourceKey: record.sourceKey, keys: new Set(record.parts.map((p) => p.sourceKey)), verdict: own } : undefined;
    return own;
  }
}

function partVerdict({ sourceKey: firstKey, verdict }: { sourceKey: string; verdict: DuplicateVerdict }, sourceKey: string): DuplicateVerdict {
  if (verdict.kind === 'conflict') return { kind: 'conflict', reason: { ...verdict.reason, message: `${sourceKey}: a part of source key ${firstKey}, rejected with its first part: ${verdict.reason.message}` } };
  return { kind: verdict.kind, line: { ...verdict.line, sourceKey } };
}
