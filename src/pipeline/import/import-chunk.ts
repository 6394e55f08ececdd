import { ChatportError } from '../../shared/errors.js';
import type { ChunkState } from '../state/run-state.js';
import type { JournalEvent, PartPath, StageName } from '../state/events.js';
import type { Int64 } from '../../shared/int64.js';
import type { JobHealth } from './job-health.js';

/**
 * Imports one chunk to the end, and finds the bad items of a FAILED job by itself.
 *
 * The platform says nothing about why an import job FAILED (decisions.md "Jobs"), and a file with one
 * invalid item applies nothing. So a FAILED part is split in halves that are sent again — safe, because
 * every item carries its idempotency key — recursively, until the failing items stand alone. Halves go one
 * after the other, so items keep their order (messages are applied in file order).
 *
 * Refusal only when conclusive: a job may also FAIL because the platform fails jobs indiscriminately for a
 * while, and that says nothing about the items. An item is refused only when its single-item job FAILED
 * `singleItemAttempts` times, then a job of the stage FINISHED (another chunk's job, since the item's first
 * failure; or else a probe, an import with no items, sent to ask), and then its job FAILED once more. When
 * the probe FAILS too, or when `JobHealth` sees a long row of FAILED jobs and the probe then FAILS, the run
 * stops with PlatformFailingError (transient, exit 75) and nothing is refused.
 *
 * Resumable: the chunk's journal state says which parts FINISHED (skipped), which are in flight (polled
 * again, not re-sent) and which were split (their halves are sent). Tries are counted per attempt, so the
 * FAILED jobs of an outage do not use up a resumed run's tries; an item refused in an earlier attempt is
 * tried once more (what made the platform refuse it may have been fixed since).
 */
export interface ChunkOps {
  /**
   * Uploads items `lo` to `hi` (end excluded) of the chunk as one JSON array file; returns the job id.
   * The caller holds the items (or the chunk file), so nothing is kept in memory here.
   */
  submit(lo: number, hi: number, part: PartPath): Promise<Int64>;
  /** Waits until the job is final; `GONE` when the platform does not know the job (404). */
  wait(jobId: Int64): Promise<'FINISHED' | 'FAILED' | 'GONE'>;
  /** Sends an import with no items and waits for it: does the platform complete jobs at all? */
  probe(): Promise<'FINISHED' | 'FAILED'>;
  /** The stage's job outcomes so far, shared by its chunks. */
  health: JobHealth;
  record(event: JournalEvent): Promise<void>;
  /** Called before each FAILED job is handled; throws when the run's budget of failed jobs is spent. */
  onFailedJob(info: { stage: StageName; seq: number; part: PartPath; jobId: Int64 }): void;
  now(): string;
}

export interface ChunkPolicy {
  /** Tries of the whole chunk before it is split (covers a job that FAILED for a passing reason). Default 2. */
  wholeChunkAttempts: number;
  /** Tries of a single item before the platform must show it works; one more try follows. Default 2. */
  singleItemAttempts: number;
}

export const DEFAULT_CHUNK_POLICY: ChunkPolicy = { wholeChunkAttempts: 2, singleItemAttempts: 2 };

export interface ChunkOutcome {
  imported: number;
  refused: number[];
}

/** A chunk a resumed run must still work on: unfinished, or holding items an earlier attempt refused. */
export function chunkNeedsWork(chunk: ChunkState): boolean {
  return !chunk.done || chunk.refused.size > 0;
}

export async function importChunk(stage: StageName, chunk: ChunkState, ops: ChunkOps, policy: ChunkPolicy = DEFAULT_CHUNK_POLICY): Promise<ChunkOutcome> {
  return new ChunkImport(stage, chunk, ops, policy).run();
}

/** One chunk's import in this attempt: what it imported and refused so far, and the FAILED tries of each part. */
class ChunkImport {
  private readonly refused: number[] = [];
  private imported = 0;
  /** FAILED tries of each part in this attempt (the journal's counts include earlier attempts). */
  private readonly tries = new Map<PartPath, number>();

  constructor(
    private readonly stage: StageName,
    private readonly chunk: ChunkState,
    private readonly ops: ChunkOps,
    private readonly policy: ChunkPolicy,
  ) {}

  async run(): Promise<ChunkOutcome> {
    const { chunk, refused } = this;
    await this.runPart('', 0, chunk.records);
    refused.sort((a, b) => a - b);
    chunk.done = true;
    await this.ops.record({ t: 'chunk-done', stage: this.stage, seq: chunk.seq, imported: this.imported, refused: refused.length });
    return { imported: this.imported, refused };
  }

  private triesOf(part: PartPath): number {
    return this.tries.get(part) ?? 0;
  }

  private async runPart(part: PartPath, lo: number, hi: number): Promise<void> {
    const { chunk } = this;
    if (chunk.finished.has(part)) {
      if (hi - lo === 1 && chunk.refused.has(lo)) await this.withdrawRefusal(lo);
      this.imported += hi - lo;
      return;
    }
    if (hi - lo === 1) return chunk.refused.has(lo) ? this.retryRefused(part, lo) : this.runSingle(part, lo);
    const maxAttempts = part === '' ? this.policy.wholeChunkAttempts : 1;
    // A part whose children already started was split in an earlier attempt: go straight to them.
    const splitBefore = hasDescendants(chunk, part);
    while (!splitBefore && this.triesOf(part) < maxAttempts) {
      if ((await this.sendAndWait(part, lo, hi)) === 'FINISHED') {
        this.imported += hi - lo;
        return;
      }
    }
    const mid = lo + Math.ceil((hi - lo) / 2);
    await this.runPart(`${part}0`, lo, mid);
    await this.runPart(`${part}1`, mid, hi);
  }

  /** One item alone: its tries, then proof that the platform completes jobs, then a last try. */
  private async runSingle(part: PartPath, index: number): Promise<void> {
    const { ops, stage, chunk } = this;
    let finishedAtFirstFailure: number | undefined;
    while (this.triesOf(part) < this.policy.singleItemAttempts) {
      if ((await this.sendAndWait(part, index, index + 1)) === 'FINISHED') {
        this.imported++;
        return;
      }
      finishedAtFirstFailure ??= ops.health.finished;
    }
    if (finishedAtFirstFailure === undefined || ops.health.finished <= finishedAtFirstFailure) await ops.health.confirmWorking(stage, ops.probe);
    if ((await this.sendAndWait(part, index, index + 1)) === 'FINISHED') {
      this.imported++;
      return;
    }
    chunk.refused.add(index);
    await ops.record({ t: 'item-refused', stage, seq: chunk.seq, index, attempts: this.triesOf(part) });
    this.refused.push(index);
  }

  /** An item an earlier attempt refused: tried once more. */
  private async retryRefused(part: PartPath, index: number): Promise<void> {
    if ((await this.sendAndWait(part, index, index + 1)) === 'FINISHED') {
      await this.withdrawRefusal(index);
      this.imported++;
    } else this.refused.push(index);
  }

  private async withdrawRefusal(index: number): Promise<void> {
    this.chunk.refused.delete(index);
    await this.ops.record({ t: 'refusal-withdrawn', stage: this.stage, seq: this.chunk.seq, index });
  }

  private async submit(part: PartPath, lo: number, hi: number): Promise<Int64> {
    const { ops, chunk } = this;
    const jobId = await ops.submit(lo, hi, part);
    chunk.inFlight.set(part, jobId);
    await ops.record({ t: 'part-submitted', stage: this.stage, seq: chunk.seq, part, jobId, at: ops.now() });
    return jobId;
  }

  private async sendAndWait(part: PartPath, lo: number, hi: number): Promise<'FINISHED' | 'FAILED'> {
    const { ops, chunk, stage } = this;
    const journalled = chunk.inFlight.get(part);
    let jobId = journalled ?? (await this.submit(part, lo, hi));
    let state = await ops.wait(jobId);
    // A job of an earlier run the platform no longer knows is forgotten and its part sent again: safe,
    // as every item carries its idempotency key. A job sent just now that is unknown is not waited out.
    if (state === 'GONE' && journalled !== undefined) state = await ops.wait((jobId = await this.submit(part, lo, hi)));
    if (state === 'GONE') throw jobUnknown(stage, chunk.seq, part, jobId);
    chunk.inFlight.delete(part);
    ops.health.ended(state);
    if (state === 'FINISHED') chunk.finished.add(part);
    else {
      chunk.failures.set(part, (chunk.failures.get(part) ?? 0) + 1);
      this.tries.set(part, this.triesOf(part) + 1);
    }
    await ops.record({ t: 'part-ended', stage, seq: chunk.seq, part, jobId, state, at: ops.now() });
    if (state === 'FAILED') {
      ops.onFailedJob({ stage, seq: chunk.seq, part, jobId });
      // A long row of FAILED jobs: before splitting further, the platform must show it completes jobs.
      if (ops.health.failingIndiscriminately) await ops.health.confirmWorking(stage, ops.probe);
    }
    return state;
  }
}

function jobUnknown(stage: StageName, seq: number, part: PartPath, jobId: Int64): ChatportError {
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
