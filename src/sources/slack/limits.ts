/**
 * Guards against zip bombs and oversized files. A real export of a large workspace has tens of thousands of
 * day files of at most some megabytes each, compressing 5–15×; the defaults leave a wide margin over that
 * while refusing archives built to exhaust the disk or the memory.
 */
export interface SlackExportLimits {
  /** Most entries in a zip (files and folders, `__MACOSX` included). Default 2,000,000. */
  maxEntries?: number;
  /** Largest uncompressed size of one file, declared or actual. Default 1 GiB. */
  maxEntryBytes?: number;
  /**
   * Largest uncompressed/compressed ratio of one entry, checked on the declared sizes and again on the
   * bytes actually inflated. Only entries over 1 MiB are checked (tiny files legitimately compress
   * far). Default 200 (JSON day files compress 5–20×; bombs 1000× and more).
   */
  maxCompressionRatio?: number;
  /** Largest sum of uncompressed sizes over the whole zip, declared or actually read. Default 64 GiB. */
  maxTotalBytes?: number;
  /**
   * Largest file read whole into memory (one day file, parsed at once because its messages must be
   * sorted by ts). Larger JSON arrays (users.json, channels.json) are streamed. Default 256 MiB.
   */
  maxWholeFileBytes?: number;
}

export type ResolvedSlackExportLimits = Required<SlackExportLimits>;

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const DEFAULT_SLACK_EXPORT_LIMITS: ResolvedSlackExportLimits = {
  maxEntries: 2_000_000,
  maxEntryBytes: GiB,
  maxCompressionRatio: 200,
  maxTotalBytes: 64 * GiB,
  maxWholeFileBytes: 256 * MiB,
};

/** Entries smaller than this are not ratio-checked: a 2 KiB file of spaces compresses 100× harmlessly. */
export const RATIO_CHECK_MIN_BYTES = MiB;

export function resolveSlackExportLimits(limits: SlackExportLimits = {}): ResolvedSlackExportLimits {
  return { ...DEFAULT_SLACK_EXPORT_LIMITS, ...Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)) };
}
