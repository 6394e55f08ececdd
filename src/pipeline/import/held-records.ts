import type { ChatportClient } from '../../api/index.js';
import type { Int64 } from '../../shared/int64.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import type { Logger } from '../../shared/logger.js';
import type { InputSourceOptions } from '../../sources/index.js';
import type { Accepted, FieldDifference, Reason } from '../../transform/index.js';
import type { StageCounts } from '../report.js';
import type { UnsentCounts } from '../state/events.js';
import type { RunPaths } from '../state/run-paths.js';
import { HeldChanges } from './held-changes.js';
import { openSnapshotCopies } from './held-copies.js';
import { openMessageCopies } from './held-message-copies.js';
import type { HeldCopy } from './held-messages.js';
import { readPatched } from './held-patches.js';
import { HeldSettle } from './held-settle.js';
import { HeldSplitParts, readDeletedParts } from './held-split-parts.js';

/** What becomes of an accepted user, channel or message once compared with the platform's copy. */
export type HeldOutcome =
  | { kind: 'send' }
  /** The platform holds it with the same content: imported, nothing sent. */
  | { kind: 'held' }
  /** It held other content and `mode: upsert` patched it. */
  | { kind: 'updated' }
  /** It holds other content, left as it is (`mode: insert`): "changed, not applied". */
  | { kind: 'changed' }
  /** It cannot be this pipeline's record (a DIRECT channel of another pipeline), or the platform refused the update. */
  | { kind: 'conflict'; reasons: Reason[] }
  /** Imported by an earlier run and deleted on the platform since: the platform would skip its used key. Skipped, `because` listed. */
  | { kind: 'deleted'; because: string };

/** What a held record's change line and warning name (an accepted record, or a spooled reply). */
export type HeldSource = Pick<Accepted, 'sourceKey' | 'position' | 'item'>;

export interface HeldRecords {
  settle(record: Accepted): HeldOutcome | Promise<HeldOutcome>;
  /**
   * Messages: a thread reply or orphan the replies pass found already there (replies/deliver.ts), compared as
   * a held message is: `held`, `changed` (counted and listed here) or, with `mode: upsert`, patched
   * (`updated`: listed here, counted from the journal's reply marks) or `conflict`.
   */
  settleReply(reply: HeldSource, copy: HeldCopy, updates: ReplyUpdates): Promise<HeldOutcome>;
  /** Lists, as applied, a reply's update an earlier attempt of the run journaled (`reply-updating`). */
  listReplyUpdate(reply: HeldSource, id: Int64, differences: readonly FieldDifference[]): Promise<void>;
  /** Logs how many changes were not applied, when there were more than the warnings named; closes the held messages' files. */
  close(): void;
  /** What settle decided so far, for the journal (a finished stage's counts come from it on resume). */
  unsent(): Required<Pick<UnsentCounts, 'held' | 'updated' | 'changed'>> & Pick<UnsentCounts, 'deleted'>;
}

/**
 * What the run journal says of a reply's update: `earlier`, what its copy held before an earlier attempt
 * patched it (a copy found equal to its source is then that attempt's update, not "already there"), read
 * back from the journal; `journal`, called before a patch is sent.
 */
export interface ReplyUpdates {
  earlier(): Promise<{ id: Int64; differences: readonly FieldDifference[] } | undefined>;
  journal(id: Int64, differences: readonly FieldDifference[]): Promise<void>;
}

export interface HeldRecordsInput {
  client: ChatportClient;
  config: PipelineConfig;
  stage: StageConfig;
  paths: RunPaths;
  runId: string;
  sources: InputSourceOptions;
  signal: AbortSignal;
  logger: Logger;
  /** Held messages' keys kept in memory before they spill to disk (held-messages.ts; tests make it small). */
  heldKeysInMemory?: number;
}

/**
 * Users, channels and messages: reads what the platform holds for this pipeline (its `chatportPipeline`
 * property; messages: by their key in this pipeline's channels that existed before the run) and decides per
 * record whether to send, count it as held, patch it (`mode: upsert`) or report it changed (held-settle.ts).
 * Every difference is listed in `<run>/changed/<stage>.ndjson`. Undefined for members, and for messages when
 * no channel can hold this pipeline's earlier messages (held-message-copies.ts).
 */
export async function openHeldRecords(input: HeldRecordsInput): Promise<HeldRecords | undefined> {
  const stage = input.stage.stage;
  if (stage === 'members') return undefined;
  const held = stage === 'messages' ? await openMessageCopies(input) : await openSnapshotCopies(input, stage);
  if (held === undefined) return undefined;
  const runDir = input.paths.runDir(input.runId);
  // The journals of an earlier attempt of this stage: what it patched and which surplus parts it deleted.
  const patched = await readPatched(input, stage, held);
  const parts = new HeldSplitParts(await readDeletedParts(runDir, stage), input.stage.options.mode === 'upsert');
  const changes = await HeldChanges.open(runDir, stage, input.logger);
  return new HeldSettle({ input, stage, held, patched, parts, changes });
}

/** Counts an outcome other than `send` and `conflict` (those are chunked or rejected by the stage). */
export function countHeld(counts: StageCounts, kind: 'held' | 'updated' | 'changed'): void {
  if (kind === 'changed') {
    counts.skipped++;
    counts.changed++;
    return;
  }
  counts.imported++;
  if (kind === 'updated') counts.updated++;
}

/** A finished stage's counts of records settled without a chunk, from its stage-input-read event. */
export function countsOfUnsent(input: UnsentCounts, importedByChunks: number): Pick<StageCounts, 'imported' | 'updated' | 'changed' | 'duplicates' | 'matched' | 'deleted'> {
  const updated = input.updated ?? 0;
  return {
    imported: importedByChunks + (input.held ?? 0) + updated, updated, changed: input.changed ?? 0, duplicates: input.duplicates ?? 0,
    ...(input.matched ? { matched: input.matched } : {}), ...(input.deleted ? { deleted: input.deleted } : {}),
  };
}
