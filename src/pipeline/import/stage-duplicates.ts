import { stringifyJson } from '../../shared/lossless-json.js';
import type { StageConfig } from '../../config/index.js';
import type { Logger } from '../../shared/logger.js';
import { SourceDuplicates, type Processed } from '../../transform/index.js';

/**
 * The duplicate-key check of one stage. With `duplicates: last-wins`, first reads the stage's whole input
 * once (parse and map, nothing sent) to learn each key's last record: a record already uploaded could not
 * be taken back, so the stage must know which one wins before it sends any. That read costs about as much
 * CPU as the stage's own reading; a resumed run does it again and gets the same answer.
 */
export async function openStageDuplicates(
  stage: StageConfig,
  readInput: () => AsyncIterable<Processed[]>,
  signal: AbortSignal,
  logger: Logger,
  /** Where keys beyond those kept in memory are written (the run folder's spilled-keys-<stage>, removed when the stage ends). */
  spillDir: string,
  /** How many records the whole input may hold, estimated as it is read (undefined when its size is unknown). */
  expectedRecords?: () => number | undefined,
): Promise<SourceDuplicates> {
  const keyName = typeof stage.key === 'string' ? stage.key : stage.key.join(', ');
  const duplicates = new SourceDuplicates(stage.options.duplicates, keyName, spillDir, undefined, expectedRecords);
  if (duplicates.mode !== 'last-wins') return duplicates;
  logger.info({ stage: stage.stage }, 'duplicates: last-wins: reading the input once to find the last record of each key');
  let ordinal = 0;
  for await (const batch of readInput())
    for (const processed of batch) {
      ordinal++;
      if (processed.kind === 'accepted') duplicates.noteInFirstPass(ordinal, processed.position, processed, stringifyJson(processed.item));
      else duplicates.noteInFirstPass(ordinal, processed.position, undefined, undefined);
    }
  if (signal.aborted) throw signal.reason;
  duplicates.endFirstPass();
  logger.info({ stage: stage.stage, records: ordinal, bytes: duplicates.bytes }, 'duplicates: last records found');
  return duplicates;
}
