import { join } from 'node:path';
import { isClientRequestError, isNotFoundError } from '../../api/index.js';
import type { Int64 } from '../../shared/int64.js';
import { comparedFieldsOf, type ComparedStage, type Reason } from '../../transform/index.js';
import type { HeldCopies } from './held-copies.js';
import { journalKey, readJournaledKeys } from './held-key-journal.js';
import type { HeldRecordsInput } from './held-records.js';
import { refusedUpdateReason } from './held-reasons.js';

/**
 * `mode: upsert`'s merge patches of held records. Each look-up key is written to
 * `held/<stage>.patched.ndjson` before its patch is sent, so a resumed stage knows which records an earlier
 * attempt may have changed since the snapshot.
 */
export interface PatchedRecords {
  file: string;
  /** Records an earlier attempt patched: their fields as the platform holds them (the snapshot keeps what it held before the run). */
  now: Map<string, Record<string, unknown>>;
}

/**
 * The snapshot is what the platform held before the run; an earlier attempt may have patched some of those
 * records since. They are read again, so a resumed stage compares the source, changed or not since, with
 * what the platform holds now: a record patched to content the source no longer has is patched back, not
 * taken as held.
 */
export async function readPatched(input: HeldRecordsInput, stage: ComparedStage, held: HeldCopies): Promise<PatchedRecords> {
  const file = join(input.paths.runDir(input.runId), 'held', `${stage}.patched.ndjson`);
  const now = new Map<string, Record<string, unknown>>();
  for (const key of await readJournaledKeys(file)) {
    const copy = now.has(key) ? undefined : held.find(key);
    if (!copy) continue;
    const current = await (input.client[stage].get(copy.id, { signal: input.signal }) as Promise<Record<string, unknown>>).catch((error: unknown) => {
      if (isNotFoundError(error)) return undefined; // deleted meanwhile: the patch is refused again, as a reject
      throw error;
    });
    if (current) now.set(key, comparedFieldsOf(stage, current));
  }
  return { file, now };
}

/**
 * Sends one merge patch, once `journal` has written what a resumed stage needs to know it may have been
 * applied (a held record's look-up key, read again by readPatched; a reply's update, in the run journal).
 * A 4xx is this record's problem (a new name already taken, the record deleted meanwhile), returned as its
 * reason; anything else stops the run.
 */
export async function patchHeld(input: HeldRecordsInput, stage: ComparedStage, journal: () => Promise<void>, id: Int64, patch: Record<string, unknown>): Promise<Reason | undefined> {
  try {
    await journal();
    await input.client[stage].update(id, patch, { signal: input.signal });
    return undefined;
  } catch (error) {
    if (!isClientRequestError(error) && !isNotFoundError(error)) throw error;
    return refusedUpdateReason(stage, id, patch, error);
  }
}

/** A held record's patch journaled by its look-up key (`held/<stage>.patched.ndjson`). */
export const journalPatchedKey = (patched: PatchedRecords, key: string) => () => journalKey(patched.file, key);
