import { idempotencyKeysOf } from '../../transform/index.js';
import { forEachEarlierImport } from '../state/earlier-imports.js';
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
    const key = this.keyOf(difference);
    if (this.wanted.size >= this.mostLookedUp && !this.wanted.has(key)) {
      this.notLookedUp++;
      return;
    }
    this.wanted.add(key);
    this.stages.add(difference.stage as ExplainedStage);
  }

  private readonly stages = new Set<ExplainedStage>();

  private keyOf(difference: Difference): string {
    return this.keyOfs[difference.stage as ExplainedStage](difference.sourceKey!);
  }

  /** How many missing records are looked up (at most `mostLookedUp`). */
  get lookedUp(): number {
    return this.wanted.size;
  }

  /** Reads every run's imported messages for the noted keys; returns how many are explained so. */
  async lookUp(): Promise<number> {
    if (this.wanted.size === 0) return 0;
    for (const dir of this.stateDirs) {
      for (const stage of this.stages) {
        await forEachEarlierImport(new RunPaths(dir), stage, undefined, (item, runId) => {
          const key = item.idempotencyKey;
          if (typeof key !== 'string' || !this.wanted.has(key)) return;
          if (!this.found.has(key)) this.found.set(key, runId);
          else if (runId === this.sentBy) this.sentAgain.add(key);
        });
      }
    }
    this.explained = this.found.size;
    return this.explained;
  }

  /** The difference, reworded when a run imported its message (a copy: the sink's own is left as it was). */
  explain(difference: Difference): Difference {
    if (this.explained === 0 || !isMissingImported(difference)) return difference;
    const idempotencyKey = this.keyOf(difference);
    const runId = this.found.get(idempotencyKey);
    if (runId === undefined) return difference;
    const explained = {
      ...difference,
      deletedSinceImport: { runId, idempotencyKey },
      message: `${difference.message}: ${deletedSinceImportReason(runId, idempotencyKey)}`,
    };
    if (this.sentAgain.has(idempotencyKey)) this.resent.push(explained);
    return explained;
  }
}

/** Why a message a run imported is not on the platform now (a missing message's difference, a recounted record's skip line). */
export function deletedSinceImportReason(runId: string, idempotencyKey: string): string {
  return `deleted on the platform after run ${runId} imported it (idempotency key ${idempotencyKey}); the platform skips a key it has taken, so no run imports it again under that key`;
}

/** The stages whose missing records are looked up: those whose records are sent again by every insert run. */
type ExplainedStage = 'messages' | 'members';

/** A missing message, or member of a members stage (its source key is the stage's: a channel stage's members have none of their own). */
const isMissingImported = (d: Difference): boolean => d.kind === 'missing' && (d.stage === 'messages' || d.stage === 'members') && d.sourceKey !== undefined;
