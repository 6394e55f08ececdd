import type { TrialSpec } from '../../config/index.js';
import type { Int64 } from '../../shared/int64.js';

/**
 * The events of the run journal (`<state>/journal.ndjson`). Each is one line; state is their fold.
 * The platform is the source of truth for what was imported; the journal only records what chatport
 * knows was committed (a job FINISHED) so that a rerun skips it, and what is in flight so that a rerun
 * polls it instead of sending it again. Job ids are int64: the journal is read and written with
 * src/shared/lossless-json.ts, so an id beyond 2^53 keeps its digits.
 */
export type StageName = 'users' | 'channels' | 'members' | 'messages';

/** Identifies a piece of a chunk: `''` is the whole chunk, `'0'`/`'1'` its halves, `'01'` a quarter… */
export type PartPath = string;

export type JournalEvent =
  | { t: 'run-started'; runId: string; pipeline: string; at: string; attempt: number; trial?: TrialSpec }
  | { t: 'chunk-written'; stage: StageName; seq: number; file: string; records: number; bytes: number; sha256: string; orphans?: number[] }
  | { t: 'part-submitted'; stage: StageName; seq: number; part: PartPath; jobId: Int64; at: string }
  | { t: 'part-ended'; stage: StageName; seq: number; part: PartPath; jobId: Int64; state: 'FINISHED' | 'FAILED'; at: string }
  /** One item the platform refused even alone, after its retries: it becomes a reject. */
  | { t: 'item-refused'; stage: StageName; seq: number; index: number; attempts: number }
  /** An item refused in an earlier attempt was tried again on resume, and its job FINISHED: it is imported. */
  | { t: 'refusal-withdrawn'; stage: StageName; seq: number; index: number }
  /** Every item of the chunk is either imported or refused. */
  | { t: 'chunk-done'; stage: StageName; seq: number; imported: number; refused: number }
  /**
   * The input was read to its end. `held`: imported without being sent (the platform held them identically),
   * `updated` (patched), `changed` (of skipped), `duplicates`; absent in journals of older versions.
   * `inputs`: what the stage's locations listed when the attempt started (a file stage; older journals lack it).
   */
  | { t: 'stage-input-read'; stage: StageName; chunks: number; read: number; rejected: number; skipped: number; inputs?: InputListing } & UnsentCounts
  | { t: 'stage-done'; stage: StageName; at: string }
  /**
   * Reply threads (pipeline/import/replies): a reply is journaled before it is sent (`reply-sending`), so a
   * resumed run looks for it in its thread before sending again; `reply-sent` once the platform answered
   * (`orphan`: its root was not found, so it went into the channel; `held`: the platform held it there
   * already and this run did not send it, so a resumed run reports it as the uninterrupted one would;
   * `updated`: held with other content and patched, `mode: upsert`; `thread`: the thread it went into, in a
   * stage whose later replies may answer a reply, replies/earlier-threads.ts);
   * `reply-refused` for a 4xx answer;
   * `reply-moving` just before that copy (`from`) is deleted, the reply being in its thread, and
   * `reply-moved` once it was (docs/threads.md "Moved orphans"): a resumed run that finds the copy gone
   * after `reply-moving` alone counts the move (older versions ignore the line and count it a reply);
   * `reply-updating` before a reply's copy found with other content (`id`, what it held: `differences`) is
   * patched (`mode: upsert`), so a resumed run that finds the patch applied counts and lists it as updated
   * (`differences` is read back from the line, never kept: reply-updates.ts).
   */
  | { t: 'reply-sending'; stage: StageName; key: string }
  | { t: 'reply-sent'; stage: StageName; key: string; id: Int64; orphan?: boolean; held?: boolean; updated?: boolean; thread?: Int64 }
  | { t: 'reply-refused'; stage: StageName; key: string; message: string }
  | { t: 'reply-moving'; stage: StageName; key: string; from: Int64 }
  | { t: 'reply-moved'; stage: StageName; key: string; from: Int64 }
  | { t: 'reply-updating'; stage: StageName; key: string; id: Int64; differences: ReplyDifference[] }
  /**
   * The stage's upload concurrency changed or the client met 429s since the last upload (`rateLimited`: the
   * client's running count of 429 answers in this attempt). Only for report.html's charts; the fold ignores it.
   */
  | { t: 'upload-pacing'; stage: StageName; concurrency: number; rateLimited: number; at: string }
  /** `abandoned`: an unfinished run given up with `--restart`. */
  | { t: 'run-ended'; runId: string; status: 'succeeded' | 'completed-with-rejects' | 'failed' | 'abandoned'; at: string };

/** One field of a reply's update, as its change line lists it (transform's FieldDifference). */
export interface ReplyDifference {
  field: string;
  platform: unknown;
  source: unknown;
}

/**
 * What a stage's locations listed: how many objects, their bytes, and a sha256 of each one's name (without
 * its folders) and size in listing order, and of the S3 objects' ETags (pipeline/import/input-listing.ts).
 */
export interface InputListing {
  files: number;
  bytes: number;
  sha256: string;
  /** sha256 over the objects' versions (S3 ETags), when the store names them; absent in older journals. */
  versions?: string;
}

/** Counts of records a stage settled without sending them (see stage-input-read). */
export interface UnsentCounts {
  held?: number;
  /** Messages: replies queued for their threads (sent after the imports; their outcome is in reply-* events). */
  replies?: number;
  matched?: number;
  updated?: number;
  changed?: number;
  duplicates?: number;
  /** Of skipped: imported by an earlier run and deleted on the platform since (held-settle.ts). */
  deleted?: number;
}

const UNSENT_KEYS = ['held', 'updated', 'changed', 'duplicates', 'matched', 'replies', 'deleted'] as const;

/** The UnsentCounts an event carries (older journals carry none). */
export function unsentOf(e: UnsentCounts): UnsentCounts {
  const out: UnsentCounts = {};
  for (const key of UNSENT_KEYS) if (e[key] !== undefined) out[key] = e[key];
  return out;
}
