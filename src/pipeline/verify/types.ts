import type { StageName } from '../state/events.js';

/**
 * What verification can find, per record:
 * - `missing`: expected from the source, not on the platform;
 * - `extra`: on the platform (in a place the pipeline owns), not expected;
 * - `misplaced`: a message missing in its channel whose equal is extra in another channel of the pipeline or in
 *   a thread, or a reply missing in its thread whose equal is in another root's thread or in its channel;
 * - `out-of-order`: a message present in its channel, but not where the source puts it;
 * - `changed`: on the platform at its place, with other content (fields named).
 */
export const DIFFERENCE_KINDS = ['missing', 'extra', 'misplaced', 'out-of-order', 'changed'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export interface SourcePosition {
  file: string;
  line?: number;
  index: number;
}

export interface Difference {
  kind: DifferenceKind;
  stage: StageName;
  /** The record's source key (members: `<channel key>/<username>`); absent for an extra the source lacks. */
  sourceKey?: string;
  /** Where the source holds the record; absent for an extra. */
  position?: SourcePosition;
  /** Members and messages: the source key of the channel the record belongs in (or is found in, for an extra). */
  channelKey?: string;
  /** The platform's id of the record found (messages, users, channels), as decimal text. */
  platformId?: string;
  /** `changed`: the fields that differ. */
  fields?: string[];
  /** `misplaced`: the channel key where the record is instead (in a thread: the channel of that thread). */
  foundIn?: string;
  /** `misplaced` reply: the source key of the root whose thread holds it instead. */
  foundInThread?: string;
  /** A member listed by its channel's record (the channels stage's members field), not a members record of its own. */
  inChannelRecord?: true;
  /** A missing message a run of the state folder imported: deleted on the platform since (deleted-since-import.ts). */
  deletedSinceImport?: { runId: string; idempotencyKey: string };
  /**
   * A missing message a run imported in another version than the latest run sent (the source changed since):
   * the platform keeps the version that run sent under its key, unless deleted since (deleted-since-import.ts).
   */
  changedSinceImport?: { runId: string; idempotencyKey: string };
  /** One sentence for people. */
  message: string;
}

export type DifferenceCounts = Record<DifferenceKind, number>;

export interface StageVerification {
  /** Records the source says the platform must hold (accepted, neither duplicate nor rejected by the run). */
  expected: number;
  /** Of those, found on the platform as the source has them. */
  verified: number;
  /** Differences found in this stage, by kind. */
  differences: DifferenceCounts;
}

/** What report.json carries under `verification`, and verify.json at its top. */
export interface VerificationSummary {
  status: 'exact' | 'differences';
  /** Differences by kind over every stage. */
  counts: DifferenceCounts;
  stages: Partial<Record<StageName, StageVerification>>;
  /** Messages whose whole content (body, properties) was read back and compared (`--sample` plus pinned ones). */
  contentChecked: number;
  /**
   * Of the missing messages and members-stage members: those a run of the state folder imported, deleted on the platform since (the
   * platform skips their taken keys, so no run brings them back). Absent when none.
   */
  deletedSinceImport?: number;
  /**
   * Missing records not looked up among the runs' imports, past the first `lookedUp` (memory stays bounded):
   * whether they were deleted on the platform since a run imported them is not known. Absent when none.
   */
  missingNotLookedUp?: number;
  lookedUp?: number;
  /**
   * Messages (replies too) the content sample reads in full, of those expected. The others are compared by
   * author, type, body length and order only: `exact` is said of those then (describe.ts says so).
   */
  sample?: { picked: number; of: number };
  durationMs: number;
  /** verify.json and the differences (NDJSON), when written into a run folder. */
  files?: { summary: string; differences: string };
}

export function emptyDifferenceCounts(): DifferenceCounts {
  return { missing: 0, extra: 0, misplaced: 0, 'out-of-order': 0, changed: 0 };
}
