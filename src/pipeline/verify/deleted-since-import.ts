import { CHANNEL_KEY_PROPERTY, idempotencyKeysOf } from '../../transform/index.js';
import { forEachEarlierImport } from '../state/earlier-imports.js';
import { sentContentPrint, type ImportedItem } from '../state/imported-index.js';
import { messageContentPrint, type MessageContent } from './content-print.js';
import { RunPaths } from '../state/run-paths.js';
import type { Difference } from './types.js';

/**
 * Missing messages looked up among the runs' imports: past this many the others stay plain "missing"
 * (memory stays bounded), and the summary counts them (`missingNotLookedUp`).
 */
export const MOST_LOOKED_UP = 100_000;

/** What a missing message's difference carries once a run is found to have imported it. */
export interface DeletedSinceImport {
  runId: string;
  idempotencyKey: string;
}

/**
 * Why a message is missing when a run of the state folder(s) imported it: deleted on the platform since.
 * The platform keeps a deleted message's idempotency key taken (decisions.md), so every later import of
 * it FINISHES and creates nothing; a bare "missing" left the reader to guess, and to rerun in vain. Each
 * missing message's key is noted as the differences come (`note`), the runs' imports are read once
 * (`lookUp`), and the sorted differences are reworded as they are written (`explain`).
 */
export class DeletedSinceImports {
  private readonly keyOfs: Record<ExplainedStage, (sourceKey: string) => string>;
  private readonly wanted = new Set<string>();
  private readonly found = new Map<string, string>();
  /**
   * Members a channel record lists (the channels stage's members field), missing: usernames by channel key.
   * Found in the channel items the runs imported, under the channel's idempotency key (by member source key).
   */
  private readonly channelMembers = new Map<string, Set<string>>();
  private membersNoted = 0;
  private readonly foundMembers = new Map<string, DeletedSinceImport>();
  /**
   * Keys whose importing run sent other content than the source holds now (or, where verification has no
   * source record at hand, than the latest run sent): the source changed since, and the platform, skipping the
   * taken key, keeps the first version, which verification may not pair with the source's record (another type
   * and body). Not evidence of a deletion.
   */
  private readonly changedSince = new Set<string>();
  /** What the source holds now for a missing message (its content's print), when verification said. */
  private readonly sourcePrints = new Map<string, string>();
  /** Keys the run being verified (`sentBy`) sent and its jobs FINISHED: the platform skipped them. */
  private readonly sentAgain = new Set<string>();
  private explained = 0;
  /** Missing records past `mostLookedUp`: not looked up, so whether a run imported them is not known. */
  notLookedUp = 0;
  /**
   * The missing messages the run being verified sent again and counted imported (an insert stage without
   * `thread:` sends every record; the platform skipped these): its report counts them skipped instead.
   */
  readonly resent: Difference[] = [];

  constructor(
    pipelineId: string,
    private readonly stateDirs: readonly string[],
    private readonly sentBy?: string,
    private readonly mostLookedUp = MOST_LOOKED_UP,
  ) {
    this.keyOfs = { messages: idempotencyKeysOf(pipelineId, 'messages'), members: idempotencyKeysOf(pipelineId, 'members') };
  }

  note(difference: Difference): void {
    if (!isMissingImported(difference)) return;
    if (this.lookedUp >= this.mostLookedUp && !this.noted(difference)) {
      this.notLookedUp++;
      return;
    }
    if (difference.inChannelRecord) {
      const usernames = this.channelMembers.get(difference.channelKey!) ?? this.channelMembers.set(difference.channelKey!, new Set()).get(difference.channelKey!)!;
      if (!usernames.has(usernameOf(difference))) this.membersNoted++;
      usernames.add(usernameOf(difference));
      return;
    }
    const key = this.keyOf(difference);
    this.wanted.add(key);
    const content = sourceContents.get(difference);
    if (content !== undefined) this.sourcePrints.set(key, messageContentPrint(content));
    this.stages.add(difference.stage as ExplainedStage);
  }

  private noted(difference: Difference): boolean {
    return difference.inChannelRecord ? this.channelMembers.get(difference.channelKey!)?.has(usernameOf(difference)) === true : this.wanted.has(this.keyOf(difference));
  }

  private readonly stages = new Set<ExplainedStage>();

  private keyOf(difference: Difference): string {
    return this.keyOfs[difference.stage as ExplainedStage](difference.sourceKey!);
  }

  /** How many missing records are looked up (at most `mostLookedUp`). */
  get lookedUp(): number {
    return this.wanted.size + this.membersNoted;
  }

  /** Reads every run's imported messages for the noted keys; returns how many are explained so. */
  async lookUp(): Promise<number> {
    if (this.lookedUp === 0) return 0;
    const [firstSent, lastSent] = [new Map<string, string | undefined>(), new Map<string, string | undefined>()];
    for (const dir of this.stateDirs) {
      const paths = new RunPaths(dir);
      for (const stage of this.stages) {
        await forEachEarlierImport(paths, stage, undefined, (item, runId) => {
          const key = item.idempotencyKey;
          if (!this.wanted.has(key)) return;
          if (!this.found.has(key)) {
            this.found.set(key, runId);
            firstSent.set(key, sentContentPrint(item));
            return;
          }
          lastSent.set(key, sentContentPrint(item));
          if (runId === this.sentBy) this.sentAgain.add(key);
        });
      }
      if (this.channelMembers.size > 0) await forEachEarlierImport(paths, 'channels', undefined, (item, runId) => this.foundInChannel(item, runId));
    }
    // The source's record now, else the latest run's copy of it, against what the importing run sent.
    for (const [key, print] of firstSent) {
      const now = this.sourcePrints.get(key) ?? lastSent.get(key);
      if (print !== undefined && now !== undefined && now !== print) this.changedSince.add(key);
    }
    this.explained = this.found.size - this.changedSince.size + this.foundMembers.size;
    return this.explained;
  }

  /** The missing members an imported channel item listed: imported with it (the earliest run's). */
  private foundInChannel(item: ImportedItem, runId: string): void {
    const channelKey = item.properties?.[CHANNEL_KEY_PROPERTY];
    const wanted = typeof channelKey === 'string' ? this.channelMembers.get(channelKey) : undefined;
    if (wanted === undefined || !Array.isArray(item.members)) return;
    for (const username of item.members) {
      const sourceKey = `${channelKey as string}/${String(username)}`;
      if (wanted.has(String(username)) && !this.foundMembers.has(sourceKey)) this.foundMembers.set(sourceKey, { runId, idempotencyKey: item.idempotencyKey });
    }
  }

  /** The difference, reworded when a run imported its message (a copy: the sink's own is left as it was). */
  explain(difference: Difference): Difference {
    if (this.found.size + this.foundMembers.size === 0 || !isMissingImported(difference)) return difference;
    const found = difference.inChannelRecord ? this.foundMembers.get(difference.sourceKey!) : this.foundByKey(this.keyOf(difference));
    if (found === undefined) return difference;
    if (!difference.inChannelRecord && this.changedSince.has(found.idempotencyKey))
      return { ...difference, changedSinceImport: found, message: `${difference.message} as the source has it now: ${changedSinceImportReason(found)}` };
    const explained = {
      ...difference,
      deletedSinceImport: found,
      message: `${difference.message}: ${difference.inChannelRecord ? removedSinceChannelImportReason(found) : deletedSinceImportReason(found.runId, found.idempotencyKey)}`,
    };
    if (!difference.inChannelRecord && this.sentAgain.has(found.idempotencyKey)) this.resent.push(explained);
    return explained;
  }

  private foundByKey(idempotencyKey: string): DeletedSinceImport | undefined {
    const runId = this.found.get(idempotencyKey);
    return runId === undefined ? undefined : { runId, idempotencyKey };
  }
}

/** Why a message a run imported is not on the platform now (a missing message's difference, a recounted record's skip line). */
export function deletedSinceImportReason(runId: string, idempotencyKey: string): string {
  return `deleted on the platform after run ${runId} imported it (idempotency key ${idempotencyKey}); the platform skips a key it has taken, so no run imports it again under that key`;
}

/** Why a member its channel's record lists is not in the channel now: the channel item that added it is never sent again. */
function removedSinceChannelImportReason({ runId, idempotencyKey }: DeletedSinceImport): string {
  return `removed on the platform after run ${runId} imported it with its channel (the channel's idempotency key ${idempotencyKey}); the channel is not sent again, so no run adds it back (take it out of the channel's members in the source to accept the removal)`;
}

/** Why a message is missing when the source changed after a run imported it (not deleted, as far as anything shows). */
function changedSinceImportReason({ runId, idempotencyKey }: DeletedSinceImport): string {
  return `run ${runId} imported another version of it (idempotency key ${idempotencyKey}), which the platform keeps unless deleted since (an extra message of the channel may be it): it skips a key it has taken, so no run applies the change under that key`;
}

const sourceContents = new WeakMap<Difference, MessageContent>();

/** A missing message's difference, noted with the source's record for it (DeletedSinceImports compares it with what was sent). */
export function withSourceContent(difference: Difference, content: MessageContent): Difference {
  sourceContents.set(difference, content);
  return difference;
}

/** The stages whose missing records are looked up: those whose records are sent again by every insert run. */
type ExplainedStage = 'messages' | 'members';

/** A missing message, or member (of a members stage, or listed by its channel's record). */
const isMissingImported = (d: Difference): boolean => d.kind === 'missing' && (d.stage === 'messages' || d.stage === 'members') && d.sourceKey !== undefined;

/** A channel record's member's username: its source key is `<channel key>/<username>` (expected-source.ts). */
const usernameOf = (d: Difference): string => d.sourceKey!.slice(d.channelKey!.length + 1);
