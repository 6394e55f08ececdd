import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ChatportClient } from '../../api/index.js';
import type { Accepted, ComparedStage } from '../../transform/index.js';
import type { FollowedParts } from './held-copies.js';
import { journalKey, readJournaledKeys } from './held-key-journal.js';
import type { HeldOutcome } from './held-records.js';
import { AddedParts, addedPartsReason, claimsPartKey, deleteSurplusParts, type SurplusPart } from './split-parts.js';

/**
 * The held comparison's split parts (split-parts.ts), as the stage reads records in order: a record's later
 * parts follow its first part, which decides for them; keys of records that read like a part's; surplus
 * parts this run deleted.
 */
export class HeldSplitParts {
  private readonly added = new AddedParts();
  /** Look-up keys of records whose own key reads `<key>#n` (few): the held copy is theirs, not `<key>`'s surplus part. */
  private readonly claimedKeys = new Set<string>();

  constructor(
    private readonly deleted: DeletedParts,
    private readonly upsert: boolean,
  ) {}

  /** A later part of the record whose first part was noted: rejected with it, changed, or `compare`d as any record. */
  laterPart(record: Accepted): ReturnType<AddedParts['laterPart']> {
    return this.added.laterPart(record);
  }

  /** Notes a record whose own key has a part's shape, so no earlier record takes its held copy for a surplus part. */
  claim(record: Accepted, key: string): void {
    if (claimsPartKey(record.item, record.sourceKey)) this.claimedKeys.add(key);
  }

  get claimed(): ReadonlySet<string> {
    return this.claimedKeys;
  }

  /** The held copy of this key is a surplus part this run deleted (this attempt or an earlier one). */
  wasDeleted(key: string): boolean {
    return this.deleted.keys.has(key);
  }

  /**
   * A record corrected to more parts than held: upsert rejects it (all its parts) when later messages follow
   * the held parts, since the added ones would land at the channel's end; insert sends none of the added ones.
   */
  unplaceable(record: Accepted, parts: FollowedParts): HeldOutcome | undefined {
    if (parts.source <= parts.held || (this.upsert && !parts.followed)) return undefined;
    const reasons = this.upsert ? [addedPartsReason(parts)] : undefined;
    this.added.note(record.sourceKey, parts.held, reasons);
    return reasons && { kind: 'conflict', reasons };
  }

  /** A first part rejected (moved, a fixed field, a refused patch): its later parts follow it, so none is sent alone (an added one would be). */
  withItsParts(record: Accepted, outcome: HeldOutcome): HeldOutcome {
    if (outcome.kind === 'conflict' && record.parts !== undefined && record.parts.length > 0) this.added.note(record.sourceKey, 0, outcome.reasons);
    return outcome;
  }

  deleteSurplus(client: ChatportClient, surplus: readonly SurplusPart[], signal: AbortSignal): Promise<void> {
    return deleteSurplusParts(client, surplus, signal, this.deleted.note);
  }
}

/** Surplus parts this run deleted, by look-up key; `note` journals one before its delete is sent. */
export interface DeletedParts {
  keys: Set<string>;
  note: (part: SurplusPart) => Promise<void>;
}

/**
 * Surplus parts deleted by this run (each look-up key written to `held/<stage>.deleted.ndjson` before its
 * delete is sent). The snapshot still holds them on resume: a source changed back meanwhile to name such a
 * part again finds it deleted, not held.
 */
export async function readDeletedParts(runDir: string, stage: ComparedStage): Promise<DeletedParts> {
  const file = join(runDir, 'held', `${stage}.deleted.ndjson`);
  const keys = new Set(await readJournaledKeys(file));
  const note = async (part: SurplusPart): Promise<void> => {
    keys.add(part.heldKey);
    await mkdir(dirname(file), { recursive: true });
    await journalKey(file, part.heldKey);
  };
  return { keys, note };
}
