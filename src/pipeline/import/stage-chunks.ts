import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import { Chunker, isOversize, type Chunk, type OversizeItem, type RecordPosition } from '../../transform/index.js';
import type { Int64 } from '../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import type { StageCounts } from '../report.js';
import type { StageName } from '../state/events.js';
import type { ChunkState } from '../state/run-state.js';
import { chunkNeedsWork, importChunk, type ChunkOps } from './import-chunk.js';
import { JobHealth } from './job-health.js';
import { noteRateLimit } from './rate-limit-note.js';
import { OrderedScheduler } from './ordered-scheduler.js';
import type { rejectLineOf } from './rejects-writer.js';
import type { ChunkUploader, StageRunContext } from './stage-runner.js';

/**
 * Bytes the open chunks of all groups may hold together (members are chunked per channel, messages per
 * lane). Open chunks are JavaScript strings, so a byte of JSON costs one to two bytes of heap, plus the
 * records' positions: measured on 1M messages over 100 channels chunked per channel, 32 MiB peaked at
 * 526 MB RSS and 8 MiB at about 300 MB.
 */
const OPEN_CHUNKS_BUDGET_BYTES = 8 * 1024 * 1024;

/** The probe's file: an import with no items (see importChunk). */
const EMPTY_IMPORT = Buffer.from('[]');

/** What the chunks report back to their stage: its counts, its rejects, its progress, its records' places. */
export interface StageTally {
  readonly counts: StageCounts;
  reject(kind: 'refused', line: Parameters<typeof rejectLineOf>): Promise<void>;
  progress(): void;
  positionOf(ordinal: number): RecordPosition;
}

/** A chunk on its way: its bytes, its records' ordinals, and its items read back from its file when needed. */
interface ChunkInFlight {
  chunk: Chunk<number>;
  state: ChunkState;
  loadItems: () => Promise<string[]>;
}

/**
 * A stage's chunks from the first item to the last job: cut (Chunker), written to the run folder and
 * journaled, uploaded with the order kept per lane (OrderedScheduler), and settled (imported, or refused
 * items rejected). Resumable: a chunk is rebuilt byte for byte from the input, checked against the
 * journal's sha256 and only its unfinished work is done again.
 */
export class StageChunks {
  private readonly chunker: Chunker<number>;
  private readonly scheduler: OrderedScheduler;
  private readonly health = new JobHealth();
  private readonly stage: StageName;
  private readonly concurrency: number;
  private readonly rateLimitedBefore: number;
  private rateLimitedNoted: number;
  /** Jobs this attempt submitted and has not yet waited for (see `waitFor`). */
  private readonly submittedHere = new Set<Int64>();
  private chunkDirReady: Promise<unknown> | undefined;
  /** Ordinals of records in open chunks that are orphans placed in their channel (noteOrphan). */
  private readonly orphanOrdinals = new Set<number>();

  constructor(
    private readonly ctx: StageRunContext,
    private readonly tally: StageTally,
  ) {
    const options = ctx.stage.options;
    this.stage = ctx.stage.stage;
    this.concurrency = options.concurrency;
    this.chunker = new Chunker<number>({ maxRecords: options.chunkRecords, maxBytes: options.chunkBytes, maxOpenBytes: OPEN_CHUNKS_BUDGET_BYTES });
    this.scheduler = new OrderedScheduler(options.concurrency);
    this.rateLimitedBefore = ctx.uploader?.rateLimited() ?? 0;
    this.rateLimitedNoted = this.rateLimitedBefore;
  }

  /**
   * One accepted item's JSON (its UTF-8, copied) into its group's chunk. Undefined when no chunk closed (most items: nothing
   * to await), a promise when chunks closed and are on their way, the reason when the item fits no chunk.
   */
  add(bytes: Uint8Array, ordinal: number, group: Int64 | undefined): Promise<void> | OversizeItem | undefined {
    const result = this.chunker.addBytes(bytes, ordinal, group);
    if (isOversize(result)) return result;
    return result.length === 0 ? undefined : this.handleAll(result);
  }

  /** The record `ordinal`, added next, is a reply imported in its channel as an orphan: counted so once imported. */
  noteOrphan(ordinal: number): void {
    this.orphanOrdinals.add(ordinal);
  }

  /** The open chunks closed and handled, then every job waited for. */
  async finish(): Promise<void> {
    await this.handleAll(this.chunker.finish());
    await this.scheduler.drain();
  }

  /** After a failure: chunks already sent settle, so the journal records their jobs; their errors give way to the first. */
  async settleSent(): Promise<void> {
    await this.scheduler.drain().catch(() => undefined);
  }

  private async handleAll(chunks: Chunk<number>[]): Promise<void> {
    for (const chunk of chunks) await this.handle(chunk);
  }

  private async handle(chunk: Chunk<number>): Promise<void> {
    const { ctx, tally } = this;
    tally.counts.chunks++;
    if (ctx.mode === 'validate') return this.leavePending(chunk);
    const sha256 = createHash('sha256').update(chunk.bytes).digest('hex');
    const orphans = this.takeOrphans(chunk);
    const known = this.journaledUnchanged(chunk, sha256);
    if (!known || (chunkNeedsWork(known) && ctx.mode === 'import')) await this.writeChunkFile(chunk, known);
    const state = known ?? (await this.journalWritten(chunk, sha256, orphans));
    if (ctx.mode === 'dry-run' || !ctx.uploader) return this.leavePending(chunk);
    // In flight, a chunk holds its bytes (sent as they are) and its records' ordinals (numbers, not position
    // objects: those outlived young-generation collections and filled the old one); its items are read
    // back from the file only if a FAILED job makes it split (rare), or for refused items. The reader waits
    // while 2 × concurrency chunks are in flight, which bounds this memory.
    let items: Promise<string[]> | undefined;
    const flight: ChunkInFlight = { chunk, state, loadItems: () => (items ??= readChunkItems(state.file)) };
    if (!chunkNeedsWork(state)) return this.settleDone(flight);
    await this.scheduler.waitBelow(this.concurrency * 2);
    this.scheduler.schedule(orderKeysOf(this.stage, chunk), () => this.upload(flight, ctx.uploader!));
  }

  /** The chunk's item indexes that noteOrphan marked. */
  private takeOrphans(chunk: Chunk<number>): number[] {
    if (this.orphanOrdinals.size === 0) return [];
    const indexes: number[] = [];
    chunk.metas.forEach((ordinal, index) => {
      if (this.orphanOrdinals.delete(ordinal)) indexes.push(index);
    });
    return indexes;
  }

  /** Counted as pending: a validation or a dry run sends nothing. */
  private leavePending(chunk: Chunk<number>): void {
    this.tally.counts.pending += chunk.records;
    this.chunker.release(chunk);
  }

  /** The chunk as an earlier attempt journaled it; a resumed run must rebuild the very same bytes. */
  private journaledUnchanged(chunk: Chunk<number>, sha256: string): ChunkState | undefined {
    const known = this.ctx.state.chunks.get(chunk.seq);
    if (known && known.sha256 !== sha256)
      throw new ChatportError(
        `the ${this.stage} stage's input, or the pipeline file's mapping or options for it (threads, chunkRecords, chunkBytes, lanes, …), changed since the interrupted run (chunk ${chunk.seq} differs); finish with the original input and pipeline file, or start over with --restart`,
        { code: 'INPUT_CHANGED', details: { stage: this.stage, seq: chunk.seq } },
      );
    return known;
  }

  /**
   * Chunk files are derived from the input, so they need no fsync: a resumed run checks the sha256 and
   * writes every unfinished chunk again from the bytes it just rebuilt, so a file torn by a crash is never
   * uploaded.
   */
  private async writeChunkFile(chunk: Chunk<number>, known: ChunkState | undefined): Promise<void> {
    const file = known?.file ?? this.ctx.paths.chunkFile(this.ctx.runId, this.stage, chunk.seq);
    await (this.chunkDirReady ??= mkdir(dirname(file), { recursive: true }));
    await writeFile(file, chunk.bytes);
  }

  private async journalWritten(chunk: Chunk<number>, sha256: string, orphans: number[]): Promise<ChunkState> {
    const { ctx } = this;
    const event = {
      t: 'chunk-written', stage: this.stage, seq: chunk.seq, file: ctx.paths.chunkFile(ctx.runId, this.stage, chunk.seq), records: chunk.records, bytes: chunk.bytes.length, sha256,
      ...(orphans.length > 0 ? { orphans } : {}),
    } as const;
    await ctx.journal.append(event);
    const state = newChunkState(event);
    ctx.state.chunks.set(chunk.seq, state);
    return state;
  }

  /** A chunk an earlier attempt finished: only its outcome is counted again. */
  private async settleDone(flight: ChunkInFlight): Promise<void> {
    const { chunk, state } = flight;
    this.chunker.release(chunk);
    await this.settleOutcome(flight, chunk.records - state.refused.size, [...state.refused].sort((a, b) => a - b));
    this.ctx.state.chunks.delete(chunk.seq);
  }

  private async upload(flight: ChunkInFlight, uploader: ChunkUploader): Promise<void> {
    const { chunk, state } = flight;
    const outcome = await importChunk(this.stage, state, this.opsFor(flight, uploader));
    // Every send of the chunk's bytes is over (retries and splits included): its buffer can be reused.
    this.chunker.release(chunk);
    await this.settleOutcome(flight, outcome.imported, outcome.refused);
    // Each chunk is met once per read of the input: a settled one is never looked up again, and keeping it
    // would make memory grow with the input (the journal has it for a resumed run).
    this.ctx.state.chunks.delete(state.seq);
  }

  /** What importChunk does with the platform, for one chunk. */
  private opsFor(flight: ChunkInFlight, uploader: ChunkUploader): ChunkOps {
    const { chunk, loadItems } = flight;
    const channelId = this.stage === 'members' ? (chunk.group as Int64) : undefined;
    const { counts } = this.tally;
    return {
      submit: async (lo, hi, part) => {
        counts.jobs.submitted++;
        const body = { bytes: lo === 0 && hi === chunk.records ? chunk.bytes : Buffer.from(`[${(await loadItems()).slice(lo, hi).join(',')}]`) };
        const jobId = await uploader.submit(this.stage, body, channelId, part);
        this.submittedHere.add(jobId);
        await this.notePacing(uploader);
        return jobId;
      },
      wait: (jobId) => this.waitFor(jobId, uploader),
      probe: () => this.probe(channelId, uploader),
      health: this.health,
      record: (event) => this.ctx.journal.append(event),
      onFailedJob: (info) => uploader.onFailedJob(info),
      now: () => new Date(this.ctx.now()).toISOString(),
    };
  }

  private async waitFor(jobId: Int64, uploader: ChunkUploader): Promise<'FINISHED' | 'FAILED' | 'GONE'> {
    const { jobs } = this.tally.counts;
    // A job an earlier attempt submitted counts as submitted here too, so finished never exceeds submitted.
    if (!this.submittedHere.delete(jobId)) jobs.submitted++;
    const state = await uploader.wait(jobId);
    if (state === 'FINISHED') jobs.finished++;
    else if (state === 'FAILED') jobs.failed++;
    return state;
  }

  private async probe(channelId: Int64 | undefined, uploader: ChunkUploader): Promise<'FINISHED' | 'FAILED'> {
    const jobId = await uploader.submit(this.stage, { bytes: EMPTY_IMPORT }, channelId, 'probe');
    this.submittedHere.add(jobId);
    this.tally.counts.jobs.submitted++;
    const state = await this.waitFor(jobId, uploader);
    // A probe the platform forgot at once proves nothing works: taken as FAILED (the run stops, retryable).
    return state === 'GONE' ? 'FAILED' : state;
  }

  private async notePacing(uploader: ChunkUploader): Promise<void> {
    const { counts } = this.tally;
    noteRateLimit(counts, this.stage, uploader, this.rateLimitedBefore, this.ctx.logger);
    const rateLimited = uploader.rateLimited();
    // For report.html's charts: written only when new 429s came, so a calm run adds no events.
    if (rateLimited === this.rateLimitedNoted) return;
    this.rateLimitedNoted = rateLimited;
    await this.ctx.journal.append({ t: 'upload-pacing', stage: this.stage, concurrency: this.concurrency, rateLimited, at: new Date(this.ctx.now()).toISOString() });
  }

  private async settleOutcome(flight: ChunkInFlight, imported: number, refused: number[]): Promise<void> {
    const { tally } = this;
    tally.counts.imported += imported;
    const orphans = importedOrphans(flight.state, refused);
    if (orphans > 0) tally.counts.orphans = (tally.counts.orphans ?? 0) + orphans;
    const items = refused.length > 0 ? await flight.loadItems() : [];
    for (const index of refused) {
      const position = tally.positionOf(flight.chunk.metas[index]!);
      const reason = { field: '', expected: 'an item the platform accepts', found: 'an import job that FAILED with this item alone', message: 'refused by the platform: the import job FAILED with this item alone, after retries' };
      await tally.reject('refused', [this.stage, 'refused', position, [reason], parseJsonExact(items[index]!, 'bigint')]);
    }
    tally.progress();
  }
}

/** The chunk's orphans placed in their channel that the platform took (a refused one is a reject). */
export function importedOrphans(state: Pick<ChunkState, 'orphans'>, refused: Iterable<number>): number {
  if (state.orphans === undefined) return 0;
  const out = new Set(refused);
  return state.orphans.filter((index) => !out.has(index)).length;
}

/** Messages of one channel must be applied in order: chunks of the same lane never overlap. */
function orderKeysOf(stage: StageName, chunk: Chunk<number>): string[] {
  return stage === 'messages' ? [String(chunk.group)] : [];
}

/** The items of a chunk file as the exact JSON texts the chunker wrote (the lossless pair round-trips its own output, int64 ids too). */
async function readChunkItems(file: string): Promise<string[]> {
  return (parseJsonExact(await readFile(file, 'utf8'), 'bigint') as unknown[]).map((item) => stringifyJson(item));
}

function newChunkState(e: { seq: number; file: string; records: number; bytes: number; sha256: string }): ChunkState {
  return { ...e, inFlight: new Map(), finished: new Set(), refused: new Set(), failures: new Map(), done: false };
}
