import type { ChatportClient } from '../../api/index.js';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ChatportError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { ItemEncoder, type Accepted, type ChannelIdLookup, type DuplicateLine, type DuplicateVerdict, type Processed, type Reason, type RecordPosition, type SourceDuplicates } from '../../transform/index.js';
import { slackSourceKey } from '../../transform/slack/index.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import type { InputSourceOptions } from '../../sources/index.js';
import { emptyCounts, type RunWarning, type StageCounts } from '../report.js';
import type { InputListing, JournalEvent, StageName } from '../state/events.js';
import type { Journal } from '../state/journal.js';
import type { RunPaths } from '../state/run-paths.js';
import type { StageState } from '../state/run-state.js';
import { countHeld, countsOfUnsent, type HeldOutcome, type HeldRecords } from './held-records.js';
import { existingOutcome } from './existing-users.js';
import { readStageBatches, type ReadStageDeps } from './read-stage.js';
import type { Holder } from './name-holders.js';
import { RejectsWriter, rejectLineOf } from './rejects-writer.js';
import { int64Mod, type Int64 } from '../../shared/int64.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import { openStageDuplicates } from './stage-duplicates.js';
import { openStageReplies, sendsReplies, type ReplyOutcome, type StageReplies } from './replies/index.js';
import { earlierRootsOf, type EarlierRoots } from './replies/earlier-roots.js';
import type { SpooledReply } from './replies/spool.js';
import { watchStageFields } from './stage-fields.js';
import { StageChunks, importedOrphans, type StageTally } from './stage-chunks.js';
import { DuplicateParts } from './split-parts.js';
import { SkippedListing } from './skipped-listing.js';
import type { RefusedChannel } from '../shards/refused-channels.js';

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
  /** Whether crossCheck refuses a channel record against the platform (a sharded read needs it: ReadStageDeps.refusedChannel). */
  refusedChannel?: RefusedChannel;
  /** The platform's channel names crossCheck judges by, for a sharded upsert channels stage (ReadStageDeps.heldChannelNames). */
  heldChannelNames?: ReadonlyMap<string, Holder>;
  /** Told what the report should warn of (a mapped field no record had). */
  onWarning?(warning: RunWarning): void;
  /** Users and channels: what the platform already holds of this pipeline (held-records.ts). */
  held?: HeldRecords;
  /** What the stage's locations listed when this attempt started (a file stage), journaled with its end. */
  inputListing?: InputListing | undefined;
}

/**
 * Runs one stage: reads its input, writes rejects, cuts chunks, uploads them (order kept per channel),
 * waits for their jobs and isolates refused items. Resumable from the journal: a rerun reads the input
 * again, gets byte-identical chunks, skips those already done and finishes the rest.
 */
export async function runStage(ctx: StageRunContext): Promise<StageCounts> {
  if (ctx.state.done && ctx.mode === 'import') return countsOfDoneStage(ctx);
  // Opened (and emptied) only for a stage that reads its input: a done stage's rejects file is kept.
  const rejects = await RejectsWriter.open(ctx.paths.stageRejects(ctx.runId, ctx.stage.stage));
  return new StageRun(ctx, rejects).run();
}

/** The context's checks a sharded read needs, as ReadStageDeps take them (absent when the run has none). */
const shardChecksOf = (ctx: StageRunContext): Pick<ReadStageDeps, 'refusedChannel' | 'heldChannelNames'> => ({
  ...(ctx.refusedChannel ? { refusedChannel: ctx.refusedChannel } : {}),
  ...(ctx.heldChannelNames ? { heldChannelNames: ctx.heldChannelNames } : {}),
});

/** A stage an earlier attempt finished: its counts from the journal; its rejects file stays as it was written. */
function countsOfDoneStage(ctx: StageRunContext): StageCounts {
  const started = ctx.now();
  const counts = Object.assign(emptyCounts(), countsFromJournal(ctx.state));
  counts.durationMs = ctx.now() - started;
  ctx.onProgress(ctx.stage.stage, counts);
  return counts;
}

/** What reading the input needs besides the records: the replies, and the source's duplicate keys. */
interface InputPass {
  /** Absent when the stage has none (only messages with a parent are replies). */
  replies: StageReplies | undefined;
  duplicates: SourceDuplicates;
}

/**
 * One run of one stage that reads its input, in named steps: `run`, `take` for each record read
 * (synchronous unless it has something to await), `send` for an accepted one, and the chunks' own steps
 * in StageChunks. It holds the stage's counts and rejects files.
 */
class StageRun implements StageTally {
  readonly counts = emptyCounts();
  private readonly stage: StageName;
  private readonly started: number;
  private readonly maxRejects: number | undefined;
  private readonly chunks: StageChunks;
  private duplicates: SourceDuplicates | undefined;
  /** What the stage's read found (input-listing.ts), journaled with its end. */
  private inputsRead: InputListing | undefined;
  /** A record's parts go together through the duplicate check (split-parts.ts). */
  private readonly duplicateParts = new DuplicateParts();
  private duplicateLog: RejectsWriter<DuplicateLine & { stage: StageName }> | undefined;
  private readonly skippedListing: SkippedListing;
  /** Each accepted item's UTF-8, for its fingerprint and its chunk; records are taken one at a time, so one buffer serves. */
  private readonly encoder = new ItemEncoder();
  /** Replies to roots earlier runs of the state folder imported go into their threads (read both times the input is). */
  private readonly earlierRoots: { earlierRoots?: EarlierRoots };

  constructor(
    private readonly ctx: StageRunContext,
    private readonly rejects: RejectsWriter,
  ) {
    this.stage = ctx.stage.stage;
    this.started = ctx.now();
    this.maxRejects = ctx.maxRejects ?? ctx.stage.options.maxRejects;
    this.chunks = new StageChunks(ctx, this);
    this.skippedListing = new SkippedListing(this.stage, ctx.paths.stageSkipped(ctx.runId, this.stage));
    this.earlierRoots = sendsReplies(ctx.stage) ? { earlierRoots: earlierRootsOf(ctx.stage, [ctx.paths.stateDir], new Set([ctx.runId])) } : {};
  }

  async run(): Promise<StageCounts> {
    try {
      await this.clearListings();
      await this.readInput();
    } catch (error) {
      await this.chunks.settleSent();
      throw error;
    } finally {
      this.duplicates?.close();
      await this.rejects.close();
      await this.duplicateLog?.close();
      await this.skippedListing.close();
      this.progress();
    }
    return this.counts;
  }

  /** The files made at a stage's first duplicate or skip: what an earlier read of it (an attempt, a validation in the same --out) listed is gone. */
  private async clearListings(): Promise<void> {
    await rm(this.ctx.paths.stageDuplicates(this.ctx.runId, this.stage), { force: true });
    await this.skippedListing.clear();
  }

  progress(): void {
    this.counts.durationMs = this.ctx.now() - this.started;
    this.ctx.onProgress(this.stage, this.counts);
  }

  positionOf(ordinal: number): RecordPosition {
    return this.duplicates!.positionOf(ordinal);
  }

  async reject(kind: 'invalid' | 'refused', line: Parameters<typeof rejectLineOf>): Promise<void> {
    const { counts, maxRejects } = this;
    counts.rejected++;
    if (kind === 'refused') counts.refused++;
    await this.rejects.write(rejectLineOf(...line));
    if (maxRejects !== undefined && counts.rejected > maxRejects)
      throw new ChatportError(`the ${this.stage} stage has more than ${maxRejects} rejected records (see ${this.rejects.path}); stopping`, {
        code: 'REJECT_LIMIT_EXCEEDED',
        details: { stage: this.stage, maxRejects, rejectsFile: this.rejects.path },
      });
  }

  /** A record the reader accepted and a later check rejects: listed as read (its mapped item when the reader kept no source record). */
  private rejectAccepted(processed: Accepted, reasons: Reason[]): Promise<void> {
    return this.reject('invalid', [this.stage, 'invalid', processed.position, reasons, processed.raw ?? processed.item, processed.sourceKey]);
  }

  /** The whole input, record by record, then the last chunks, the replies and the stage's end in the journal. */
  private async readInput(): Promise<void> {
    const pass = await this.openInputPass();
    const fields = watchStageFields(this.ctx.config, this.ctx.stage);
    for await (const batch of readStageBatches(this.ctx.config, this.ctx.stage, this.readingOptions(fields))) {
      // Synchronous per record; awaits only for a reject line or a finished chunk (a few per thousand).
      for (const processed of batch) {
        const pending = this.take(processed, pass);
        if (pending) await pending;
      }
    }
    if (this.ctx.signal.aborted) throw this.ctx.signal.reason;
    await this.chunks.finish();
    for (const warning of fields?.warnings(this.counts.read) ?? []) this.ctx.onWarning?.(warning);
    await this.finishInput(pass.replies);
  }

  private async openInputPass(): Promise<InputPass> {
    const { ctx } = this;
    const replies = await openStageReplies({
      stage: ctx.stage,
      runDir: ctx.paths.runDir(ctx.runId),
      ...(ctx.mode === 'import' && ctx.client ? { sending: { client: ctx.client, journal: ctx.journal, journalPath: ctx.paths.journal, state: ctx.state.replies, signal: ctx.signal, held: ctx.held } } : {}),
    });
    const readAgain = () => readStageBatches(ctx.config, ctx.stage, { channelIds: ctx.channelIds, sources: ctx.sources, signal: ctx.signal, ...shardChecksOf(ctx), ...this.earlierRoots });
    const spillDir = join(ctx.paths.runDir(ctx.runId), `spilled-keys-${this.stage}`);
    this.duplicates = await openStageDuplicates(ctx.stage, readAgain, ctx.signal, ctx.logger, spillDir, () => expectedRecords(this.counts));
    return { replies, duplicates: this.duplicates };
  }

  private readingOptions(fields: ReturnType<typeof watchStageFields>): Parameters<typeof readStageBatches>[2] {
    const { ctx, counts } = this;
    const onInputBytes = (read: number, total: number | undefined) => {
      counts.bytesRead = read;
      if (total !== undefined) counts.bytesTotal = total;
    };
    const onInputsRead = (listing: InputListing) => (this.inputsRead = listing);
    const onReaderWarning = (message: string) => ctx.onWarning?.({ stage: this.stage, path: 'slack', field: 'ts', message });
    return { channelIds: ctx.channelIds, sources: ctx.sources, signal: ctx.signal, onInputBytes, onInputsRead, onReaderWarning, ...shardChecksOf(ctx), ...this.earlierRoots, ...(fields ? { onSourceBatch: fields.onSourceBatch } : {}) };
  }

  /** One record read: counted, and a rejected one written; undefined when there is nothing to await. */
  private take(processed: Processed, pass: InputPass): Promise<void> | undefined {
    const { counts } = this;
    const ordinal = ++counts.read;
    if (ordinal % 10_000 === 0) this.progress();
    pass.duplicates.note(ordinal, processed.position);
    if (processed.kind === 'skipped') {
      counts.skipped++;
      // A skip is rare next to the records sent: only it pays for a line and a promise.
      if (processed.trial === undefined) return this.skippedListing.list(processed);
    } else if (processed.kind === 'rejected') return this.reject('invalid', [this.stage, 'invalid', processed.position, processed.reasons, processed.raw]);
    else return this.takeAccepted(processed, ordinal, pass);
    return undefined;
  }

  /** An accepted record: checked against the rest of the run and the platform, then sent unless it need not be. */
  private takeAccepted(processed: Accepted, ordinal: number, pass: InputPass): Promise<void> | undefined {
    const { ctx, counts } = this;
    // A user the platform already has is not sent, so what would stop it being sent does not apply.
    const existing = existingOutcome(ctx.config, ctx.stage, processed.sourceKey);
    const problems = existing === undefined ? ctx.crossCheck?.(processed.item) : undefined;
    if (problems && problems.length > 0) return this.rejectAccepted(processed, problems);
    const bytes = this.encoder.encode(stringifyJson(processed.item));
    const verdict = this.duplicateParts.verdictOf(processed, pass.duplicates.check(ordinal, processed, bytes));
    if (verdict !== undefined) return this.settleDuplicate(verdict, processed);
    if (existing !== undefined) {
      counts.skipped++;
      if (existing === 'matched') counts.matched = (counts.matched ?? 0) + 1;
      return undefined;
    }
    // A promise only for a patch or a changed-list line: a microtask per record costs.
    const held = ctx.held?.settle(processed);
    // `bytes` stays valid while the promise is pending: readInput awaits it before taking the next record.
    if (held instanceof Promise) return held.then((settled) => this.send(processed, bytes, ordinal, settled, pass.replies));
    return this.send(processed, bytes, ordinal, held, pass.replies);
  }

  /** A record to send, unless what the platform holds settles it: into a chunk, or queued as a reply. */
  private send(processed: Accepted, bytes: Uint8Array, ordinal: number, held: HeldOutcome | undefined, replies: StageReplies | undefined): Promise<void> | undefined {
    const { stage } = this;
    if (held?.kind === 'conflict') return this.rejectAccepted(processed, held.reasons);
    if (held?.kind === 'deleted') return this.skipDeleted(processed, held.because);
    if (held && held.kind !== 'send') {
      countHeld(this.counts, held.kind);
      // A patched record holds its name now: a later record of the stage naming it is checked as against one sent.
      if (held.kind === 'updated') this.ctx.onAccepted?.(processed.item, processed.sourceKey);
      return undefined;
    }
    this.ctx.onAccepted?.(processed.item, processed.sourceKey);
    const parent = replies?.parentOf(processed);
    if (parent !== undefined) return this.queueReply(processed, parent, replies!);
    if (replies?.isPlacedOrphan(processed)) this.chunks.noteOrphan(ordinal);
    const added = this.chunks.add(bytes, ordinal, groupOf(stage, processed, this.ctx.stage.options.lanes));
    if (added === undefined || added instanceof Promise) return added;
    return this.rejectAccepted(processed, [added.reason]);
  }

  /** Imported by an earlier run, deleted on the platform since: skipped and listed with why (the platform skips its key). */
  private skipDeleted(processed: Accepted, because: string): Promise<void> {
    this.counts.skipped++;
    this.counts.deleted = (this.counts.deleted ?? 0) + 1;
    return this.skippedListing.list({ kind: 'skipped', position: processed.position, rule: -1, because, raw: processed.raw });
  }

  /** Sent into its root's thread once the imports have finished: pending until then. */
  private async queueReply(processed: Accepted, parent: string, replies: StageReplies): Promise<void> {
    await replies.queue(processed, parent);
    this.counts.pending++;
  }

  /** A key seen again: a duplicate or superseded record is counted and listed, a conflicting one rejected. */
  private async settleDuplicate(verdict: DuplicateVerdict, processed: Accepted): Promise<void> {
    if (verdict.kind === 'conflict') return this.rejectAccepted(processed, [verdict.reason]);
    this.counts[verdict.kind === 'duplicate' ? 'duplicates' : 'skipped']++;
    await this.listDuplicate(verdict.line);
  }

  private async listDuplicate(line: DuplicateLine): Promise<void> {
    this.duplicateLog ??= await RejectsWriter.open<DuplicateLine & { stage: StageName }>(this.ctx.paths.stageDuplicates(this.ctx.runId, this.stage));
    await this.duplicateLog.write({ stage: this.stage, ...line });
  }

  /**
   * A reply also sent to the channel whose root is not on the platform: its channel copy, imported at its
   * time, is the one message Slack showed there, so the reply is a duplicate of it (docs/slack-migration.md).
   */
  private async settleBroadcastReply(reply: SpooledReply): Promise<void> {
    this.counts.pending--;
    const { position } = reply;
    const copyKey = slackSourceKey.broadcastCopyOf(reply.sourceKey ?? reply.key);
    const message = `a reply also sent to the channel whose thread root is not on the platform: its channel copy (the ${JSON.stringify(copyKey)} record at the same position) stands for it at its time, so it is not sent again as an orphan`;
    const line: DuplicateLine = { kind: 'duplicate', file: position.file, ...(position.line === undefined ? {} : { line: position.line }), index: position.index, sourceKey: reply.sourceKey ?? reply.key, of: position, message };
    this.counts.duplicates++;
    await this.listDuplicate(line);
  }

  /** After the last record: the replies sent, and the stage's totals and end journaled. */
  private async finishInput(replies: StageReplies | undefined): Promise<void> {
    const { ctx, counts, stage } = this;
    if (replies && ctx.mode === 'import')
      await replies.finish((outcome) => ('broadcastCopyStands' in outcome ? this.settleBroadcastReply(outcome.reply) : settleReply(counts, outcome, (kind, line) => this.reject(kind, line))));
    // Every listing on disk before the stage's end is journaled: a resume trusts a finished stage's files.
    await this.rejects.close();
    await this.duplicateLog?.close();
    await this.skippedListing.close();
    if (ctx.mode !== 'import') return;
    // What the stage read, which a resume compares with what is there then (the pre-flight's listing for
    // stages whose reader does not say: an object replaced between the two would otherwise seem changed).
    const inputs = this.inputsRead ?? ctx.inputListing;
    await ctx.journal.append({ t: 'stage-input-read', stage, chunks: counts.chunks, read: counts.read, rejected: counts.rejected - counts.refused, skipped: counts.skipped, duplicates: counts.duplicates, ...ctx.held?.unsent(), ...(counts.matched ? { matched: counts.matched } : {}), ...(replies ? { replies: replies.queued } : {}), ...(inputs ? { inputs } : {}) });
    await ctx.journal.append({ t: 'stage-done', stage, at: new Date(ctx.now()).toISOString() });
    ctx.state.done = true;
  }
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
  let placedOrphans = 0;
  for (const chunk of state.chunks.values()) {
    refused += chunk.refused.size;
    imported += chunk.records - chunk.refused.size;
    placedOrphans += importedOrphans(chunk, chunk.refused);
  }
  const replies = repliesFromJournal(state.replies);
  replies.orphans += placedOrphans;
  imported += replies.sent;
  refused += replies.refused;
  return {
    read: input.read, skipped: input.skipped, rejected: input.rejected + refused, refused, chunks: input.chunks, ...countsOfUnsent({ ...input, updated: (input.updated ?? 0) + replies.updated }, imported),
    ...(replies.threaded ? { replies: replies.threaded, repliesHeld: replies.held.replies } : {}), ...(replies.orphans ? { orphans: replies.orphans, orphansHeld: replies.held.orphans } : {}),
    ...(replies.moved ? { moved: replies.moved } : {}),
  };
}

/** A reply's outcome in the counts: it was pending since the main pass. */
async function settleReply(counts: StageCounts, outcome: Extract<ReplyOutcome, { delivery: unknown }>, reject: (kind: 'refused', line: Parameters<typeof rejectLineOf>) => Promise<void>): Promise<void> {
  counts.pending--;
  if (outcome.delivery.kind === 'changed') {
    // Held with other content, not applied: listed and counted like a held message (held-records.ts).
    countHeld(counts, 'changed');
    return;
  }
  if (outcome.delivery.kind === 'refused') {
    const reason = { field: '', expected: 'a reply the platform accepts', found: 'a refused send', message: outcome.delivery.message };
    await reject('refused', ['messages', 'refused', outcome.reply.position, [reason], outcome.reply.item]);
    return;
  }
  counts.imported++;
  if (outcome.delivery.updated) counts.updated++;
  const held = outcome.delivery.held ? 1 : 0;
  if (outcome.orphan) {
    counts.orphans = (counts.orphans ?? 0) + 1;
    counts.orphansHeld = (counts.orphansHeld ?? 0) + held;
  } else {
    counts.replies = (counts.replies ?? 0) + 1;
    counts.repliesHeld = (counts.repliesHeld ?? 0) + held;
  }
  if (outcome.moved) counts.moved = (counts.moved ?? 0) + 1;
}

function repliesFromJournal(r: StageState['replies']): { sent: number; refused: number; threaded: number; orphans: number; moved: number; updated: number; held: { replies: number; orphans: number } } {
  return { sent: r.sent.size, refused: r.refused.size, threaded: r.sent.size - r.sent.orphans, orphans: r.sent.orphans, moved: r.moved.size, updated: r.sent.updated, held: r.sent.held };
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
