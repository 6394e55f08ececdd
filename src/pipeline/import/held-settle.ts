import type { Int64 } from '../../shared/int64.js';
import { compareWithPlatform, fixedFieldDifferences, type Accepted, type ComparedStage, type Comparison, type FieldDifference } from '../../transform/index.js';
import type { HeldChanges } from './held-changes.js';
import type { HeldCopies } from './held-copies.js';
import { comparedMessageKey } from './held-message-copies.js';
import type { HeldCopy } from './held-messages.js';
import { journalPatchedKey, patchHeld, type PatchedRecords } from './held-patches.js';
import { deletedSinceReason, fixedFieldReason, foreignDirectReason, movedMessageReason } from './held-reasons.js';
import type { HeldOutcome, HeldRecords, HeldRecordsInput, HeldSource, ReplyUpdates } from './held-records.js';
import type { HeldSplitParts } from './held-split-parts.js';
import { deletedPartReason, type SurplusPart } from './split-parts.js';

/** What a stage's held comparison works with, opened by openHeldRecords. */
export interface OpenedHeldRecords {
  input: HeldRecordsInput;
  stage: ComparedStage;
  held: HeldCopies;
  patched: PatchedRecords;
  parts: HeldSplitParts;
  changes: HeldChanges;
}

/**
 * Decides per record, in the stage's order: rejected before any look-up (a foreign DIRECT channel, a later
 * part of a rejected record), sent (not held; a moved message is rejected), rejected for what no patch can
 * change, or compared with the platform's copy and held, changed or patched.
 */
export class HeldSettle implements HeldRecords {
  private readonly input: HeldRecordsInput;
  private readonly stage: ComparedStage;
  private readonly held: HeldCopies;
  private readonly patched: PatchedRecords;
  private readonly parts: HeldSplitParts;
  private readonly changes: HeldChanges;
  private readonly upsert: boolean;
  /** Records settled `deleted` (journaled with the stage's end, so a finished stage's breakdown survives a resume). */
  private deleted = 0;

  constructor({ input, stage, held, patched, parts, changes }: OpenedHeldRecords) {
    this.input = input;
    this.stage = stage;
    this.held = held;
    this.patched = patched;
    this.parts = parts;
    this.changes = changes;
    this.upsert = input.stage.options.mode === 'upsert';
  }

  settle(record: Accepted): HeldOutcome | Promise<HeldOutcome> {
    // Synchronous unless something is written or sent: the stage runner awaits only then.
    const outcome = this.settleRecord(record);
    return outcome instanceof Promise ? outcome.then((o) => this.parts.withItsParts(record, o)) : this.parts.withItsParts(record, outcome);
  }

  async settleReply(reply: HeldSource, copy: HeldCopy, updates: ReplyUpdates): Promise<HeldOutcome> {
    const comparison = compareWithPlatform(this.stage, reply.item, copy.fields);
    if (comparison.differences.length > 0) return this.settleChanged(reply, () => updates.journal(copy.id, comparison.differences), copy, comparison);
    const earlier = await updates.earlier();
    if (!earlier) return { kind: 'held' };
    // Patched to this content by an earlier attempt (killed before the reply's journal line): this run's update.
    await this.listReplyUpdate(reply, earlier.id, earlier.differences);
    return { kind: 'updated' };
  }

  listReplyUpdate(reply: HeldSource, id: Int64, differences: readonly FieldDifference[]): Promise<void> {
    return this.changes.list(reply, id, true, { differences: [...differences], patch: {} }, []);
  }

  close(): void {
    this.held.close();
    this.changes.close();
  }

  unsent(): ReturnType<HeldRecords['unsent']> {
    return { ...this.changes.unsent(), ...(this.deleted > 0 ? { deleted: this.deleted } : {}) };
  }

  private settleRecord(record: Accepted): HeldOutcome | Promise<HeldOutcome> {
    const early = this.beforeLookup(record);
    if (early) return early;
    const key = this.stage === 'messages' ? comparedMessageKey(this.input.stage, record) : record.sourceKey;
    if (key !== undefined) this.parts.claim(record, key);
    const copy = key === undefined ? undefined : this.held.find(key);
    if (key !== undefined && copy) return this.settleHeld(record, key, copy);
    // Held under the key of its earlier text (a Mattermost post edited since): the same record, compared there.
    const earlier = key === undefined ? undefined : this.held.earlierVersion?.(record, key);
    return earlier ? this.settleHeld(record, earlier.key, earlier.copy) : this.notHeld(record, key);
  }

  /** Settled without looking the record up: its DIRECT channel is another's, or it is a later part its first part decided for. */
  private beforeLookup(record: Accepted): HeldOutcome | Promise<HeldOutcome> | undefined {
    const foreign = this.held.foreignDirect(record.sourceKey);
    if (foreign) return { kind: 'conflict', reasons: [foreignDirectReason(foreign)] };
    const later = this.parts.laterPart(record);
    if (later && later.kind !== 'compare') return later.kind === 'conflict' ? later : this.listAddedPart(record);
    return undefined;
  }

  /**
   * Not held under its key: sent, unless another channel holds it (sent, it would be taken for a retry of
   * that copy and create nothing), or an earlier run imported it and it was deleted on the platform since
   * (sent, the platform would skip its used key and create nothing either).
   */
  private notHeld(record: Accepted, key: string | undefined): HeldOutcome {
    if (key === undefined) return { kind: 'send' };
    const moved = this.held.elsewhere(key);
    if (moved) return { kind: 'conflict', reasons: [movedMessageReason(record, moved)] };
    const idempotencyKey = record.item.idempotencyKey;
    const importedBy = typeof idempotencyKey === 'string' ? this.held.deletedSince?.(idempotencyKey) : undefined;
    if (importedBy === undefined) return { kind: 'send' };
    this.deleted++;
    return { kind: 'deleted', because: deletedSinceReason(importedBy, idempotencyKey as string) };
  }

  private settleHeld(record: Accepted, key: string, copy: HeldCopy): HeldOutcome | Promise<HeldOutcome> {
    const { stage, held, parts } = this;
    if (parts.wasDeleted(key)) return { kind: 'conflict', reasons: [deletedPartReason(copy.id)] };
    const fixed = fixedFieldDifferences(stage, record.item, copy.fields);
    if (fixed.length > 0) return { kind: 'conflict', reasons: fixed.map((d) => fixedFieldReason(stage, copy.id, d)) };
    const heldParts = held.parts(record, key, parts.claimed);
    const unplaceable = heldParts && parts.unplaceable(record, heldParts);
    if (unplaceable) return unplaceable;
    return this.compare(record, key, copy, heldParts?.surplus ?? []);
  }

  /** Compared with what the platform holds now (an earlier attempt's patch, else the snapshot's copy). */
  private compare(record: Accepted, key: string, copy: HeldCopy, surplus: readonly SurplusPart[]): HeldOutcome | Promise<HeldOutcome> {
    const { stage } = this;
    const now = this.patched.now.get(key);
    const comparison = compareWithPlatform(stage, record.item, now ?? copy.fields);
    if (comparison.differences.length > 0) return this.settleChanged(record, key, copy, comparison, surplus);
    if (now) {
      // Patched to this content by an earlier attempt: an update of this run, listed and counted as one.
      const original = compareWithPlatform(stage, record.item, copy.fields);
      if (original.differences.length > 0) return this.listUpdated(record, copy, original, surplus);
    }
    // Surplus parts alone (their first part patched already, by an older version) are a change too.
    if (surplus.length > 0) return this.settleChanged(record, key, copy, comparison, surplus);
    return this.changes.held();
  }

  /**
   * Listed; with `mode: upsert` patched and its surplus parts deleted, else counted changed, not applied.
   * `key`: a held record's look-up key, or (a reply) what journals its patch first.
   */
  private async settleChanged(record: HeldSource, key: string | (() => Promise<void>), copy: HeldCopy, comparison: Comparison, surplus: readonly SurplusPart[] = []): Promise<HeldOutcome> {
    const { changes } = this;
    await changes.list(record, copy.id, this.upsert, comparison, surplus);
    if (!this.upsert) return changes.changed(record, comparison, surplus);
    // The update first: one the platform refuses rejects the record, and its old parts stay whole with it.
    const updated = Object.keys(comparison.patch).length > 0 ? await this.update(key, copy, comparison.patch) : undefined;
    if (updated?.kind === 'conflict') return updated;
    await this.parts.deleteSurplus(this.input.client, surplus, this.input.signal);
    return updated ?? changes.updated();
  }

  /** A patch sent; counted updated for a held record (a reply's update is counted from the journal's reply marks). */
  private async update(key: string | (() => Promise<void>), copy: HeldCopy, patch: Record<string, unknown>): Promise<HeldOutcome> {
    const reply = typeof key !== 'string';
    const refused = await patchHeld(this.input, this.stage, reply ? key : journalPatchedKey(this.patched, key), copy.id, patch);
    if (refused) return { kind: 'conflict', reasons: [refused] };
    return reply ? { kind: 'updated' } : this.changes.updated();
  }

  /** Brought to the source's content by an earlier attempt; its surplus parts are deleted again (gone already, or left by a kill). */
  private async listUpdated(record: Accepted, copy: HeldCopy, comparison: Comparison, surplus: readonly SurplusPart[]): Promise<HeldOutcome> {
    await this.changes.list(record, copy.id, true, comparison, surplus);
    await this.parts.deleteSurplus(this.input.client, surplus, this.input.signal);
    return this.changes.updated();
  }

  /** A part the platform does not hold of a record it holds with fewer parts (insert): changed, not applied, not sent. */
  private async listAddedPart(record: Accepted): Promise<HeldOutcome> {
    await this.changes.list(record, undefined, false, { differences: [{ field: 'body', platform: undefined, source: record.item.body }], patch: {} }, []);
    return this.changes.addedPart();
  }
}
