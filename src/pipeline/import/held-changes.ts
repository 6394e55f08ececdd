import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from '../../shared/logger.js';
import type { Int64 } from '../../shared/int64.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import type { ComparedStage, Comparison } from '../../transform/index.js';
import type { HeldOutcome, HeldRecords, HeldSource } from './held-records.js';
import type { SurplusPart } from './split-parts.js';

/** Warnings named one by one before the rest are only counted. */
const WARN_EACH = 10;

/**
 * What the held comparison reports: every difference as a line of `<run>/changed/<stage>.ndjson`, the
 * records settled without a chunk counted for the journal, a warning per change not applied (the first
 * few) and one for the rest.
 */
export class HeldChanges {
  private readonly tally = { held: 0, updated: 0, changed: 0 };

  private constructor(
    readonly file: string,
    private readonly stage: ComparedStage,
    private readonly logger: Logger,
  ) {}

  /** Written anew by every read of the stage's input (first attempt or resume), so no change is listed twice. */
  static async open(runDir: string, stage: ComparedStage, logger: Logger): Promise<HeldChanges> {
    const file = join(runDir, 'changed', `${stage}.ndjson`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, '');
    return new HeldChanges(file, stage, logger);
  }

  /** `id` the platform's record (none for a part it does not hold); `surplus`: held parts beyond the source's count, deleted when `applied`. */
  async list(record: HeldSource, id: Int64 | undefined, applied: boolean, comparison: Comparison, surplus: readonly SurplusPart[]): Promise<void> {
    await appendFile(this.file, `${stringifyJson(changeLine(this.stage, record, id, applied, comparison, surplus))}\n`);
  }

  held(): HeldOutcome {
    this.tally.held++;
    return { kind: 'held' };
  }

  updated(): HeldOutcome {
    this.tally.updated++;
    return { kind: 'updated' };
  }

  /** Changed, not applied (`mode: insert`): the first few named in a warning. */
  changed(record: HeldSource, comparison: Comparison, surplus: readonly SurplusPart[]): HeldOutcome {
    if (++this.tally.changed <= WARN_EACH) {
      const fields = comparison.differences.map((d) => d.field);
      this.logger.warn({ stage: this.stage, sourceKey: record.sourceKey, fields, ...surplusNote(surplus) }, 'changed, not applied; set mode: upsert to apply');
    }
    return { kind: 'changed' };
  }

  /** A part the platform does not hold of a record it holds with fewer parts: changed, not applied, and not named in a warning. */
  addedPart(): HeldOutcome {
    this.tally.changed++;
    return { kind: 'changed' };
  }

  /** The changes not applied beyond the warnings that named them. */
  close(): void {
    const { stage, file } = this;
    const { changed } = this.tally;
    if (changed > WARN_EACH) this.logger.warn({ stage, changed, file }, `${changed} ${stage} changed, not applied (all in ${file}); set mode: upsert to apply`);
  }

  unsent(): ReturnType<HeldRecords['unsent']> {
    return { ...this.tally };
  }
}

function changeLine(stage: ComparedStage, { position, sourceKey }: HeldSource, id: Int64 | undefined, applied: boolean, comparison: Comparison, surplus: readonly SurplusPart[]) {
  const line = { stage, sourceKey, ...(id === undefined ? {} : { id }), file: position.file, ...(position.line === undefined ? {} : { line: position.line }), index: position.index, applied, differences: comparison.differences };
  return surplus.length === 0 ? line : { ...line, surplusParts: surplus.map(({ sourceKey, id }) => ({ sourceKey, id })) };
}

const surplusNote = (surplus: readonly SurplusPart[]) => (surplus.length === 0 ? {} : { surplusParts: surplus.map((p) => p.sourceKey) });
