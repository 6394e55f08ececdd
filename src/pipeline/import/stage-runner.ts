import { createHash } from 'node:crypto';
import type { ChatportClient } from '../../api/index.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { Chunker, isOversize, type Accepted, type Chunk, type ChannelIdLookup, type DuplicateLine, type DuplicateVerdict, type Reason, type SourceDuplicates } from '../../transform/index.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import type { InputSourceOptions } from '../../sources/index.js';
import { emptyCounts, type RunWarning, type StageCounts } from '../report.js';
import type { JournalEvent, StageName } from '../state/events.js';
import type { Journal } from '../state/journal.js';
import type { RunPaths } from '../state/run-paths.js';
import type { ChunkState, StageState } from '../state/run-state.js';
import { countHeld, countsOfUnsent, type HeldRecords } from './held-records.js';
import { chunkNeedsWork, importChunk, type ChunkOps } from './import-chunk.js';
import { existingOutcome } from './existing-users.js';
import { JobHealth } from './job-health.js';
import { noteRateLimit } from './rate-limit-note.js';
import { OrderedScheduler } from './ordered-scheduler.js';
import { readStageBatches } from './read-stage.js';
import { RejectsWriter, rejectLineOf } from './rejects-writer.js';
import { int64Mod, type Int64 } from '../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import { openStageDuplicates } from './stage-duplicates.js';
import { openStageReplies, type ReplyOutcome } from './replies/index.js';
import { watchStageFields } from './stage-fields.js';

/** How a stage's chunks reach the platform; absent in a dry run or a validation. */
export interface ChunkUploader {
  /**
   * Uploads one JSON array — a chunk file by path, or the bytes of a part of one — and returns the job id.
   * `channelId` is set for members.
   */
  submit(stage: StageName, file: { path: string } | { bytes: Uint8Array }, channelId: Int64 | undefined, part: string): Promise<Int64>;
  wait(jobId: Int64): Promise<'FINISHED' | 'FAILED' | 'GONE'>;
  /** 429 answers the platform gave so far (a running count); for the report. */
  rateLimited(): number;
  /** Uploads per second the client paces this stage's route to, once the platform's rate limit was met. */
  pacedPerSecond?(stage: StageName): number | undefined;
  /** Throws when the run's budget of FAILED jobs is spent. */
  onFailedJob(info: { stage: StageName; seq: number; part: string; jobId: Int64 }): void;
}

export interface StageRunContext {
  config: PipelineConfig;
  stage: StageConfig;
  runId: string;
  paths: RunPaths;
  state: StageState;
  journal: Journal<JournalEvent>;
  /** `import` uploads; `dry-run` writes chunks only; `validate` writes nothing but rejects. */
  mode: 'import' | 'dry-run' | 'validate';
  uploader?: ChunkUploader;
  /** Import mode: the API client (reply threads send through it). */
  client?: ChatportClient;
  channelIds?: ChannelIdLookup;
  sources: InputSourceOptions;
  /** Overrides the stage's own maxRejects (the CLI's --max-rejects). */
  maxRejects?: number;
  signal: AbortSignal;
  logger: Logger;
  now(): number;
  /** Called whenever the counts change (throttling is the listener's business). */
  onProgress(stage: StageName, counts: StageCounts): void;
  /** Called with every accepted item, e.g. to collect usernames and channel keys for cross-checks. */
  onAccepted?(item: Record<string, unknown>, sourceKey: string): void;
  /** Extra checks of an accepted item (offline cross-references); reasons turn it into a reject. */
  crossCheck?(item: Record<string, unknown>): Reason[];
  /** Told what the report should warn of (a mapped field no record had). */
  onWarning?(warning: RunWarning): void;
  /** Users and channels: what the platform already holds of this pipeline (held-records.ts). */
  held?: HeldRecords;
}

/**
 * Bytes the open chunks of all groups may hold together (members are chunked per channel, messages per
 * lane). Open chunks are JavaScript strings, so a byte of JSON costs one to two bytes of heap, plus the
 * records' positions: measured on 1M messages over 100 channels chunked per channel, 32 MiB peaked at
 * 526 MB RSS and 8 MiB at about 300 MB.
 */
const OPEN_CHUNKS_BUDGET_BYTES = 8 * 1024 * 1024;

/** The probe's file: an import with no items (see importChunk). */
const EMPTY_IMPORT = Buffer.from('[]');

/**
 * Runs one stage: reads its input, writes rejects, cuts chunks, uploads them (order kept per channel),
 * waits for their jobs and isolates refused items. Resumable from the journal: a rerun reads the input
 * again, gets byte-identical chunks, skips those already done and finishes the rest.
 */
export async function runStage(ctx: StageRunContext): Promise<StageCounts> {
  const { stage: stageConfig, state, mode } = ctx;
  const stage = stageConfig.stage;
  const counts = emptyCounts();
  const started = ctx.now();
  const rejects = await RejectsWriter.open(ctx.paths.stageRejects(ctx.runId, stage));
  let duplicateLog: RejectsWriter<DuplicateLine & { stage: StageName }> | undefined;
  const options = stageConfig.options;
  const maxRejects = ctx.maxRejects ?? options.maxRejects;
  const lanes = options.lanes;
  const chunker = new Chunker<number>({ maxRecords: options.chunkRecords, maxBytes: options.chunkBytes, maxOpenBytes: OPEN_CHUNKS_BUDGET_BYTES });
  let chunkDirReady: Promise<unknown> | undefined;
  const scheduler = new OrderedScheduler(options.concurrency);
  const health = new JobHealth();
  const rateLimitedBefore = ctx.uploader?.rateLimited() ?? 0;
  /** Jobs this attempt submitted and has not yet waited for (see `wait`). */
  const submittedHere = new Set<Int64>();
  const progress = () => {
    counts.durationMs = ctx.now() - started;
    ctx.onProgress(stage, counts);
  };

  const reject = async (kind: 'invalid' | 'refused', line: Parameters<typeof rejectLineOf>) => {
    counts.rejected++;
    if (kind === 'refused') counts.refused++;
    await rejects.write(rejectLineOf(...line));
    if (maxRejects !== undefined && counts.rejected > maxRejects)
      throw new ChatportError(`the ${stage} stage has more than ${maxRejects} rejected records (see ${rejects.path}); stopping`, {
        code: 'REJECT_LIMIT_EXCEEDED',
        details: { stage, maxRejects, rejectsFile: rejects.path },
      });
  };

  /** A key seen again: a duplicate or superseded record is counted and listed, a conflicting one rejected. */
  const settleDuplicate = async (verdict: DuplicateVerdict, processed: Accepted) => {
    if (verdict.kind === 'conflict') return reject('invalid', [stage, 'invalid', processed.position, [verdict.reason], processed.item]);
    counts[verdict.kind === 'duplicate' ? 'duplicates' : 'skipped']++;
    duplicateLog ??= await RejectsWriter.open<DuplicateLine & { stage: StageName }>(ctx.paths.stageDuplicates(ctx.runId, stage));
    await duplicateLog.write({ stage, ...verdict.line });
  };

  const handleChunk = async (chunk: Chunk<number>) => {
    counts.chunks++;
    if (mode === 'validate') {
      counts.pending += chunk.records;
      chunker.release(chunk);
      return;
    }
    const sha256 = createHash('sha256').update(chunk.bytes).digest('hex');
    let chunkState = state.chunks.get(chunk.seq);
    if (chunkState && chunkState.sha256 !== sha256)
      throw new ChatportError(
        `the ${stage} input or its chunk options (chunkRecords, chunkBytes, lanes) changed since the interrupted run (chunk ${chunk.seq} differs); finish with the original input and options, or start over with --restart`,
        { code: 'INPUT_CHANGED', details: { stage, seq: chunk.seq } },
      );
    // Chunk files are derived from the input, so they need no fsync: a resumed run checks the sha256 above
    // and writes every unfinished chunk again from the bytes it just rebuilt, so a file torn by a crash is
    // never uploaded.
    if (!chunkState || (chunkNeedsWork(chunkState) && mode === 'import')) {
      const file = chunkState?.file ?? ctx.paths.chunkFile(ctx.runId, stage, chunk.seq);
      await (chunkDirReady ??= mkdir(dirname(file), { recursive: true }));
      await writeFile(file, chunk.bytes);
    }
    if (!chunkState) {
      const event = { t: 'chunk-written', stage, seq: chunk.seq, file: ctx.paths.chunkFile(ctx.runId, stage, chunk.seq), records: chunk.records, bytes: chunk.bytes.length, sha256 } as const;
      await ctx.journal.append(event);
      chunkState = newChunkState(event);
      state.chunks.set(chunk.seq, chunkState);
    }
    if (mode === 'dry-run' || !ctx.uploader) {
      counts.pending += chunk.records;
      chunker.release(chunk);
      return;
    }
    // In flight, a chunk holds its bytes (sent as they are) and its records' ordinals (numbers, not position
    // objects: those outlived young-generation collections and filled the old one); its items are read
    // back from the file only if a FAILED job makes it split (rare), or for refused items. The reader waits
    // while 2 × concurrency chunks are in flight, which bounds this memory.
    const file = chunkState.file;
    const metas = chunk.metas;
    const records = chunk.records;
    const whole = chunk.bytes;
    let items: Promise<string[]> | undefined;
    const loadItems = () => (items ??= readChunkItems(file));
    if (!chunkNeedsWork(chunkState)) {
      chunker.release(chunk);
      await settleOutcome(metas, loadItems, records - chunkState.refused.size, [...chunkState.refused].sort((a, b) => a - b));
      state.chunks.delete(chunk.seq);
      return;
    }
    const orderKeys = orderKeysOf(stage, chunk);
    await scheduler.waitBelow(options.concurrency * 2);
    const uploader = ctx.uploader;
    const current = chunkState;
    const channelId = stage === 'members' ? (chunk.group as Int64) : undefined;
    const wait = async (jobId: Int64) => {
      // A job an earlier attempt submitted counts as submitted here too, so finished never exceeds submitted.
      if (!submittedHere.delete(jobId)) counts.jobs.submitted++;
      const state = await uploader.wait(jobId);
      if (state === 'FINISHED') counts.jobs.finished++;
      else if (state === 'FAILED') counts.jobs.failed++;
      return state;
    };
    const ops: ChunkOps = {
      submit: async (lo, hi, part) => {
        counts.jobs.submitted++;
        const body = { bytes: lo === 0 && hi === records ? whole : Buffer.from(`[${(await loadItems()).slice(lo, hi).join(',')}]`) };
        const jobId = await uploader.submit(stage, body, channelId, part);
        submittedHere.add(jobId);
        await notePacing(uploader);
        return jobId;
      },
      wait,
      probe: async () => {
        const jobId = await uploader.submit(stage, { bytes: EMPTY_IMPORT }, channelId, 'probe');
        submittedHere.add(jobId);
        counts.jobs.submitted++;
        const state = await wait(jobId);
        // A probe the platform forgot at once proves nothing works: taken as FAILED (the run stops, retryable).
        return state === 'GONE' ? 'FAILED' : state;
      },
      health,
      record: (event) => ctx.journal.append(event),
      onFailedJob: (info) => uploader.onFailedJob(info),
      now: () => new Date(ctx.now()).toISOString(),
    };
    scheduler.schedule(orderKeys, async () => {
      const outcome = await importChunk(stage, current, ops);
      // Every send of the chunk's bytes is over (retries and splits included): its buffer can be reused.
      chunker.release(chunk);
      await settleOutcome(metas, loadItems, outcome.imported, outcome.refused);
      // Each chunk is met once per read of the input: a settled one is never looked up again, and
      // keeping it would make memory grow with the input (the journal has it for a resumed run).
      state.chunks.delete(current.seq);
    });
  };

  let rateLimitedNoted = rateLimitedBefore;
  const notePacing = async (uploader: ChunkUploader) => {
    noteRateLimit(counts, stage, uploader, rateLimitedBefore, ctx.logger);
    const rateLimited = uploader.rateLimited();
    // For report.html's charts: written only when new 429s came, so a calm run adds no events.
    if (rateLimited === rateLimitedNoted) return;
    rateLimitedNoted = rateLimited;
    await ctx.journal.append({ t: 'upload-pacing', stage, concurrency: options.concurrency, rateLimited, at: new Date(ctx.now()).toISOString() });
  };

  const settleOutcome = async (ordinals: number[], loadItems: () => Promise<string[]>, imported: number, refused: number[]) => {
    counts.imported += imported;
    const items = refused.length > 0 ? await loadItems() : [];
    for (const index of refused) {
      const position = duplicates!.positionOf(ordinals[index]!);
      const reason = { field: '', expected: 'an item the platform accepts', found: 'an import job that FAILED with this item alone', message: 'refused by the platform: the import job FAILED with this item alone, after retries' };
      await reject('refused', [stage, 'refused', position, [reason], parseJsonExact(items[index]!, 'bigint')]);
    }
    progress();
  };

  let duplicates: SourceDuplicates | undefined;
  try {
    if (!state.done || mode !== 'import') {
      const replies = await openStageReplies({
        stage: stageConfig,
        runDir: ctx.paths.runDir(ctx.runId),
        ...(mode === 'import' && ctx.client ? { sending: { client: ctx.client, journal: ctx.journal, state: state.replies, signal: ctx.signal } } : {}),
      });
      const readAgain = () => readStageBatches(ctx.config, stageConfig, { channelIds: ctx.channelIds, sources: ctx.sources, signal: ctx.signal });
      duplicates = await openStageDuplicates(stageConfig, readAgain, ctx.signal, ctx.logger, join(ctx.paths.runDir(ctx.runId), `spilled-keys-${stage}`), () => expectedRecords(counts));
      const fields = watchStageFields(ctx.config, stageConfig);
      const onInputBytes = (read: number, total: number | undefined) => {
        counts.bytesRead = read;
        if (total !== undefined) counts.bytesTotal = total;
      };
      const reading = { channelIds: ctx.channelIds, sources: ctx.sources, signal: ctx.signal, onInputBytes, ...(fields ? { onSourceBatch: fields.onSourceBatch } : {}) };
      for await (const batch of readStageBatches(ctx.config, stageConfig, reading)) {
        // Synchronous per record; awaits only for a reject line or a finished chunk (a few per thousand).
        for (const processed of batch) {
          const ordinal = ++counts.read;
          if (ordinal % 10_000 === 0) progress();
          duplicates.note(ordinal, processed.position);
          if (processed.kind === 'skipped') counts.skipped++;
          else if (processed.kind === 'rejected') await reject('invalid', [stage, 'invalid', processed.position, processed.reasons, processed.raw]);
          else {
            // A user the platform already has is not sent, so what would stop it being sent does not apply.
            const existing = existingOutcome(ctx.config, stageConfig, processed.sourceKey);
            const problems = existing === undefined ? ctx.crossCheck?.(processed.item) : undefined;
            if (problems && problems.length > 0) {
              await reject('invalid', [stage, 'invalid', processed.position, problems, processed.item]);
              continue;
            }
            const json = stringifyJson(processed.item);
            const verdict = duplicates.check(ordinal, processed, json);
            if (verdict !== undefined) {
              await settleDuplicate(verdict, processed);
              continue;
            }
            if (existing !== undefined) {
              counts.skipped++;
              if (existing === 'matched') counts.matched = (counts.matched ?? 0) + 1;
              continue;
            }
            // Awaited only when it is a promise (a patch or a changed-list line): a microtask per record costs.
            let held = ctx.held?.settle(processed);
            if (held instanceof Promise) held = await held;
            if (held?.kind === 'conflict') {
              await reject('invalid', [stage, 'invalid', processed.position, held.reasons, processed.item]);
              continue;
            }
            if (held && held.kind !== 'send') {
              countHeld(counts, held.kind);
              continue;
            }
            ctx.onAccepted?.(processed.item, processed.sourceKey);
            const parent = replies?.parentOf(processed);
            if (parent !== undefined) {
              // Sent into its root's thread once the imports have finished: pending until then.
              await replies!.queue(processed, parent);
              counts.pending++;
              continue;
            }
            const result = chunker.addJson(json, ordinal, groupOf(stage, processed, lanes));
            if (isOversize(result)) await reject('invalid', [stage, 'invalid', processed.position, [result.reason], processed.item]);
            else for (const chunk of result) await handleChunk(chunk);
          }
        }
      }
      if (ctx.signal.aborted) throw ctx.signal.reason;
      for (const chunk of chunker.finish()) await handleChunk(chunk);
      for (const warning of fields?.warnings(counts.read) ?? []) ctx.onWarning?.(warning);
      await scheduler.drain();
      if (replies && mode === 'import') await replies.finish((outcome) => settleReply(counts, outcome, reject));
      if (mode === 'import') {
        await ctx.journal.append({ t: 'stage-input-read', stage, chunks: counts.chunks, read: counts.read, rejected: counts.rejected - counts.refused, skipped: counts.skipped, duplicates: counts.duplicates, ...ctx.held?.unsent(), ...(counts.matched ? { matched: counts.matched } : {}), ...(replies ? { replies: replies.queued } : {}) });
        await ctx.journal.append({ t: 'stage-done', stage, at: new Date(ctx.now()).toISOString() });
        state.done = true;
      }
    } else {
      Object.assign(counts, countsFromJournal(state));
    }
  } catch (error) {
    // Let chunks already sent settle so the journal records their jobs, then report the first failure.
    await scheduler.drain().catch(() => undefined);
    throw error;
  } finally {
    duplicates?.close();
    await rejects.close();
    await duplicateLog?.close();
    progress();
  }
  return counts;
}

/** The records the whole input may hold, from those read so far and the share of its bytes they took. */
function expectedRecords(counts: StageCounts): number | undefined {
  const { read, bytesRead, bytesTotal } = counts;
  return bytesRead && bytesTotal && read > 0 ? Math.ceil((read * bytesTotal) / bytesRead) : undefined;
}

/** A stage finished in an earlier attempt: its counts come from the journal, its rejects file is kept. */
function countsFromJournal(state: StageState): Partial<StageCounts> {
  const input = state.input ?? { chunks: 0, read: 0, rejected: 0, skipped: 0, duplicates: 0 };
  let imported = 0;
  let refused = 0;
  for (const chunk of state.chunks.values()) {
    refused += chunk.refused.size;
    imported += chunk.records - chunk.refused.size;
  }
  const replies = repliesFromJournal(state.replies);
  imported += replies.sent;
  refused += replies.refused;
  return {
    read: input.read, skipped: input.skipped, rejected: input.rejected + refused, refused, chunks: input.chunks, ...countsOfUnsent(input, imported),
    ...(replies.threaded ? { replies: replies.threaded } : {}), ...(replies.orphans ? { orphans: replies.orphans } : {}),
  };
}

/** A reply's outcome in the counts: it was pending since the main pass. */
async function settleReply(counts: StageCounts, outcome: ReplyOutcome, reject: (kind: 'refused', line: Parameters<typeof rejectLineOf>) => Promise<void>): Promise<void> {
  counts.pending--;
  if (outcome.delivery.kind === 'refused') {
    const reason = { field: '', expected: 'a reply the platform accepts', found: 'a refused send', message: outcome.delivery.message };
    await reject('refused', ['messages', 'refused', outcome.reply.position, [reason], outcome.reply.item]);
    return;
  }
  counts.imported++;
  if (outcome.orphan) counts.orphans = (counts.orphans ?? 0) + 1;
  else counts.replies = (counts.replies ?? 0) + 1;
}

function repliesFromJournal(r: StageState['replies']): { sent: number; refused: number; threaded: number; orphans: number } {
  return { sent: r.sent.size, refused: r.refused.size, threaded: r.sent.size - r.sent.orphans, orphans: r.sent.orphans };
}

/**
 * Members: one channel per chunk (the channel is in the import's URL). Messages: one lane per chunk, a lane
 * being the channels whose id is the same modulo `lanes`. A lane's chunks upload one after the other, which
 * keeps each channel's messages in order, while lanes upload in parallel. Lanes rather than one chunk per
 * channel: with many channels interleaved, per-channel chunks stay small (the open-chunk budget is shared),
 * and every chunk costs a file, a job and its polls; lanes keep chunks full.
 */
function groupOf(stage: StageName, accepted: Accepted, lanes: number): Int64 | undefined {
  if (stage === 'members') return accepted.channelId;
  if (stage === 'messages') return int64Mod(accepted.item.channelId as Int64, lanes);
  return undefined;
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
