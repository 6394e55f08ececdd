import type { TrialSpec } from '../../config/index.js';
import { unsentOf, type InputListing, type JournalEvent, type PartPath, type StageName, type UnsentCounts } from './events.js';
import type { JournalLine } from './journal.js';
import { ReplyUpdateTable } from './reply-updates.js';
import type { Int64 } from '../../shared/int64.js';
import { SentReplies } from './sent-replies.js';

export interface ChunkState {
  seq: number;
  file: string;
  records: number;
  bytes: number;
  sha256: string;
  /** Item indexes of replies imported in their channel's place as orphans (their root is not in the source). */
  orphans?: number[];
  /** Parts sent and not yet ended: poll these again on resume. */
  inFlight: Map<PartPath, Int64>;
  /** Parts whose job FINISHED: their items are imported. */
  finished: Set<PartPath>;
  /** Item indexes refused by the platform. */
  refused: Set<number>;
  /** How many times each part was seen FAILED (bounds the retries of a single part). */
  failures: Map<PartPath, number>;
  done: boolean;
}

/** Reply threads: what the journal says of each reply key. */
export interface RepliesState {
  sending: Set<string>;
  sent: SentReplies;
  refused: Map<string, string>;
  /** Replies whose channel copy an earlier run left was deleted once they were in their thread (few). */
  moved: Set<string>;
  /** Replies whose copy's delete was about to be sent (`reply-moving`): the copy's id, until `reply-moved` (few). */
  moving: Map<string, Int64>;
  /** Replies whose copy with other content was (being) patched: the copy's id and the journal line saying what it held. */
  updating: ReplyUpdateTable;
}

export interface StageState {
  chunks: Map<number, ChunkState>;
  replies: RepliesState;
  input?: { chunks: number; read: number; rejected: number; skipped: number; inputs?: InputListing } & UnsentCounts;
  done: boolean;
}

export interface RunState {
  runId?: string;
  attempt: number;
  /** The run's trial cut, as its first attempt recorded it (absent: the whole input). */
  trial?: TrialSpec;
  /** The current run ended; a new invocation starts a fresh run. */
  ended: boolean;
  stages: Record<StageName, StageState>;
}

export function emptyRunState(): RunState {
  const stage = (): StageState => ({ chunks: new Map(), replies: { sending: new Set(), sent: new SentReplies(), refused: new Map(), moved: new Set(), moving: new Map(), updating: new ReplyUpdateTable() }, done: false });
  return { attempt: 0, ended: false, stages: { users: stage(), channels: stage(), members: stage(), messages: stage() } };
}

/** Folds journal events, one at a time as they are read, into the state of the latest run. */
export class RunStateFold {
  state = emptyRunState();

  /** `line`: where the event is in the journal (a reply's update is read back from it). */
  add(e: JournalEvent, line?: JournalLine): void {
    let state = this.state;
    if (e.t === 'run-started') {
      // A new run id means the previous run ended; the same id again is a resumed attempt.
      if (state.runId !== e.runId) this.state = state = emptyRunState();
      state.runId = e.runId;
      state.attempt = e.attempt;
      state.ended = false;
      if (e.trial) state.trial = e.trial;
      return;
    }
    if (e.t === 'upload-pacing') return;
    if (e.t === 'run-ended') {
      state.ended = true;
      return;
    }
    applyStageEvent(state.stages[e.stage], e, line);
  }
}

/** Folds journal events into the state of the latest run. Pure. */
export function foldRunState(events: Iterable<JournalEvent>): RunState {
  const fold = new RunStateFold();
  for (const e of events) fold.add(e);
  return fold.state;
}

function applyStageEvent(stage: StageState, e: Exclude<JournalEvent, { t: 'run-started' | 'upload-pacing' | 'run-ended' }>, line: JournalLine | undefined): void {
  switch (e.t) {
    case 'chunk-written':
      stage.chunks.set(e.seq, {
        seq: e.seq, file: e.file, records: e.records, bytes: e.bytes, sha256: e.sha256, ...(e.orphans ? { orphans: e.orphans } : {}),
        inFlight: new Map(), finished: new Set(), refused: new Set(), failures: new Map(), done: false,
      });
      break;
    case 'part-submitted':
      chunkOf(stage, e.seq).inFlight.set(e.part, e.jobId);
      break;
    case 'part-ended': {
      const chunk = chunkOf(stage, e.seq);
      chunk.inFlight.delete(e.part);
      if (e.state === 'FINISHED') chunk.finished.add(e.part);
      else chunk.failures.set(e.part, (chunk.failures.get(e.part) ?? 0) + 1);
      break;
    }
    case 'item-refused':
      chunkOf(stage, e.seq).refused.add(e.index);
      break;
    case 'refusal-withdrawn':
      chunkOf(stage, e.seq).refused.delete(e.index);
      break;
    case 'chunk-done':
      chunkOf(stage, e.seq).done = true;
      break;
    case 'stage-input-read':
      stage.input = { chunks: e.chunks, read: e.read, rejected: e.rejected, skipped: e.skipped, ...unsentOf(e), ...(e.inputs ? { inputs: e.inputs } : {}) };
      break;
    case 'stage-done':
      stage.done = true;
      break;
    case 'reply-sending':
      stage.replies.sending.add(e.key);
      break;
    case 'reply-sent':
      stage.replies.sending.delete(e.key);
      stage.replies.sent.set(e.key, { id: e.id, orphan: e.orphan === true, ...(e.held === true ? { held: true } : {}), ...(e.updated === true ? { updated: true } : {}) });
      break;
    case 'reply-refused':
      stage.replies.sending.delete(e.key);
      stage.replies.refused.set(e.key, e.message);
      break;
    case 'reply-moving':
      stage.replies.moving.set(e.key, e.from);
      break;
    case 'reply-moved':
      stage.replies.moving.delete(e.key);
      stage.replies.moved.add(e.key);
      break;
    case 'reply-updating':
      // Events folded without their file (foldRunState) cannot be read back: nothing of them is kept.
      if (line) stage.replies.updating.set(e.key, { id: e.id, line });
      break;
  }
}

function chunkOf(stage: StageState, seq: number): ChunkState {
  const chunk = stage.chunks.get(seq);
  if (!chunk) throw new Error(`journal names chunk ${seq} before it was written`);
  return chunk;
}
