import { ChatportError } from '../../shared/errors.js';
import type { ChunkState } from '../state/run-state.js';
import type { JournalEvent, PartPath, StageName } from '../state/events.js';

/**
 * Imports one chunk to the end, and finds the bad items of a FAILED job by itself.
 *
 * The platform says nothing about why an import job FAILED (decisions.md "Jobs"), and a file with one
 * invalid item applies nothing. So a FAILED part is split in halves that are sent again — safe, because
 * every item carries its idempotency key — recursively, until the failing items stand alone. A single item
 * that still FAILS after `singleItemAttempts` tries is refused (it becomes a reject); everything else is
 * imported. Halves go one after the other, so items keep their order (messages are applied in file order).
 *
 * Resumable: the chunk's journal state says which parts FINISHED (skipped), which are in flight (polled
 * again, not re-sent) and which FAILED before (split at once).
 */
export interface ChunkOps {
  /**
   * Uploads items `lo` to `hi` (end excluded) of the chunk as one JSON array file; returns the job id.
   * The caller holds the items (or the chunk file), so nothing is kept in memory here.
   */
  submit(lo: number, hi: number, part: PartPath): Promise<number>;
  /** Waits until the job is final; `GONE` when the platform does not know the job (404). */
  wait(jobId: number): Promise<'FINISHED' | 'FAILED' | 'GONE'>;
  record(event: JournalEvent): Promise<void>;
  /** Called before each FAILED job is handled; throws when the run's budget of failed jobs is spent. */
  onFailedJob(info: { stage: StageName; seq: number; part: PartPath; jobId: number }): void;
  now(): string;
}

export interface ChunkPolicy {
  /** Tries of the whole chunk before it is split (covers a job that FAILED for a passing reason). Default 2. */
  wholeChunkAttempts: number;
  /** Tries of a single item before it is refused. Default 3. */
  singleItemAttempts: number;
}

export const DEFAULT_CHUNK_POLICY: ChunkPolicy = { wholeChunkAttempts: 2, singleItemAttempts: 3 };

export interface ChunkOutcome {
  imported: number;
  refused: number[];
}

export async function importChunk(stage: StageName, chunk: ChunkState, ops: ChunkOps, policy: ChunkPolicy = DEFAULT_CHUNK_POLICY): Promise<ChunkOutcome> {
  const refused: number[] = [];
  let imported = 0;

  const runPart = async (part: PartPath, lo: number, hi: number): Promise<void> => {
    if (chunk.finished.has(part)) {
      imported += hi - lo;
      return;
    }
    if (hi - lo === 1 && chunk.refused.has(lo)) {
      refused.push(lo);
      return;
    }
    const maxAttempts = hi - lo === 1 ? policy.singleItemAttempts : part === '' ? policy.wholeChunkAttempts : 1;
    // A part whose children already started was split in an earlier attempt: go straight to them.
    const splitBefore = hasDescendants(chunk, part);
    while (!splitBefore && (chunk.failures.get(part) ?? 0) < maxAttempts) {
      const state = await sendAndWait(part, lo, hi);
      if (state === 'FINISHED') {
        imported += hi - lo;
        return;
      }
    }
    if (hi - lo === 1) {
      const attempts = chunk.failures.get(part) ?? 0;
      chunk.refused.add(lo);
      await ops.record({ t: 'item-refused', stage, seq: chunk.seq, index: lo, attempts });
      refused.push(lo);
      return;
    }
    const mid = lo + Math.ceil((hi - lo) / 2);
    await runPart(`${part}0`, lo, mid);
    await runPart(`${part}1`, mid, hi);
  };

  const submit = async (part: PartPath, lo: number, hi: number): Promise<number> => {
    const jobId = await ops.submit(lo, hi, part);
    chunk.inFlight.set(part, jobId);
    await ops.record({ t: 'part-submitted', stage, seq: chunk.seq, part, jobId, at: ops.now() });
    return jobId;
  };

  const sendAndWait = async (part: PartPath, lo: number, hi: number): Promise<'FINISHED' | 'FAILED'> => {
    const journalled = chunk.inFlight.get(part);
    let jobId = journalled ?? (await submit(part, lo, hi));
    let state = await ops.wait(jobId);
    // A job of an earlier run the platform no longer knows is forgotten and its part sent again: safe,
    // as every item carries its idempotency key. A job sent just now that is unknown is not waited out.
    if (state === 'GONE' && journalled !== undefined) state = await ops.wait((jobId = await submit(part, lo, hi)));
    if (state === 'GONE') throw jobUnknown(stage, chunk.seq, part, jobId);
    chunk.inFlight.delete(part);
    if (state === 'FINISHED') chunk.finished.add(part);
    else chunk.failures.set(part, (chunk.failures.get(part) ?? 0) + 1);
    await ops.record({ t: 'part-ended', stage, seq: chunk.seq, part, jobId, state, at: ops.now() });
    if (state === 'FAILED') ops.onFailedJob({ stage, seq: chunk.seq, part, jobId });
    return state;
  };

  await runPart('', 0, chunk.records);
  refused.sort((a, b) => a - b);
  chunk.done = true;
  await ops.record({ t: 'chunk-done', stage, seq: chunk.seq, imported, refused: refused.length });
  return { imported, refused };
}

function jobUnknown(stage: StageName, seq: number, part: PartPath, jobId: number): ChatportError {
  return new ChatportError(`import job ${jobId} (${stage} chunk ${seq}${part ? ` part ${part}` : ''}) was just created, yet the platform answers 404 for it`, {
    code: 'API_UNAVAILABLE',
    transient: true,
    details: { stage, seq, part, jobId },
  });
}

function hasDescendants(chunk: ChunkState, part: PartPath): boolean {
  const isChild = (p: string) => p.length > part.length && p.startsWith(part);
  for (const p of chunk.finished) if (isChild(p)) return true;
  for (const p of chunk.inFlight.keys()) if (isChild(p)) return true;
  for (const p of chunk.failures.keys()) if (isChild(p)) return true;
  return false;
}
