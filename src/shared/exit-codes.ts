/**
 * Exit codes a scheduler can act on (sysexits-style; see README "Exit codes").
 * Kubernetes podFailurePolicy and AWS Batch evaluateOnExit key on these numbers, so they never change.
 * 99 ("nothing to do") is not used: a run whose input the platform already holds still reads, checks and
 * verifies everything, and succeeds (0); a scheduler must not skip what follows it.
 */
export const ExitCode = {
  OK: 0,
  /** An internal error: a bug in chatport. Nothing else exits 1. */
  INTERNAL: 1,
  /** The run finished, but some records were rejected (invalid or refused by the platform). */
  COMPLETED_WITH_REJECTS: 2,
  /** Remote jobs FAILED and could not be recovered. */
  REMOTE_JOB_FAILED: 3,
  USAGE: 64,
  /** Invalid input data, or the reject threshold was exceeded. */
  DATA_INVALID: 65,
  /** An input, a file or a platform resource asked for does not exist. */
  INPUT_MISSING: 66,
  /** The service (or an export's S3 output store) stayed unavailable after all retries, or does not speak the Management API. */
  UNAVAILABLE: 69,
  /** A file or folder chatport must write (the state folder, an output) cannot be created. */
  CANT_CREATE: 73,
  /** Reading or writing local files failed (disk full, I/O error), or the run state is damaged. */
  IO_ERROR: 74,
  /** Temporary failure: rate limited past the retry budget, a deadline passed, the platform failing every job (or verification's export twice), `verify --shards` before every shard started. Safe to retry later. */
  TEMPORARY: 75,
  /** Authentication or authorization failed (401/403). */
  AUTH: 77,
  CONFIG: 78,
  /** `export --incremental` with no whole day due: nothing written (Airflow's skip convention). */
  NOTHING_TO_DO: 99,
  SIGINT: 130,
  SIGTERM: 143,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Error code → exit code. The one place where failures become process results. */
const byCode: ReadonlyArray<[RegExp, ExitCode]> = [
  [/^USAGE$/, ExitCode.USAGE],
  [/^(CONFIG_|STATE_FOREIGN$|INPUT_REFUSED$)/, ExitCode.CONFIG],
  [/^(INPUT_MISSING|API_NOT_FOUND|SLACK_EXPORT_NOT_FOUND|SLACK_FILE_MISSING)$/, ExitCode.INPUT_MISSING],
  [/^(DATA_INVALID|REJECT_LIMIT_EXCEEDED|INPUT_CHANGED|IDENTITY_AMBIGUOUS|USERS_EXIST|SINK_ROW_INVALID)$/, ExitCode.DATA_INVALID],
  [/^SLACK_(ZIP_UNREADABLE|ZIP_PATH_ESCAPE|ZIP_BOMB|JSON_INVALID|GRID_UNSUPPORTED)$/, ExitCode.DATA_INVALID],
  [/^(API_UNAUTHORIZED|API_FORBIDDEN|INPUT_FORBIDDEN|OUTPUT_FORBIDDEN)$/, ExitCode.AUTH],
  [/^(API_RATE_LIMITED|API_TIMEOUT|JOB_DEADLINE_EXCEEDED|STATE_LOCKED|PLATFORM_FAILING_JOBS|VERIFY_EXPORT_FAILED|INPUT_READ_FAILED|API_EXPORT_URL_EXPIRED|EXPORT_FILE_CHANGED|OUTPUT_CONCURRENT_WRITE|SHARDS_NOT_STARTED|SHARD_ORDER|SANDBOX_PORT_IN_USE)$/, ExitCode.TEMPORARY],
  [/^(API_SERVER|API_NETWORK|API_UNAVAILABLE|API_RESPONSE_INVALID|API_REDIRECT|API_METHOD_NOT_ALLOWED|OUTPUT_UNAVAILABLE|INPUT_UNAVAILABLE)$/, ExitCode.UNAVAILABLE],
  [/^(OUTPUT_WRITE_FAILED|STATE_UNWRITABLE)$/, ExitCode.CANT_CREATE],
  [/^STATE_CORRUPT$/, ExitCode.IO_ERROR],
  [/^JOB_FAILED$/, ExitCode.REMOTE_JOB_FAILED],
];

/**
 * Node's file system errors (they carry `syscall`): a path that cannot be created or written is CANTCREAT,
 * a disk that is full or failing is IOERR, a path that does not exist is a missing input.
 */
const bySystemCode: Readonly<Record<string, ExitCode>> = {
  EACCES: ExitCode.CANT_CREATE, EPERM: ExitCode.CANT_CREATE, EROFS: ExitCode.CANT_CREATE, ENOTDIR: ExitCode.CANT_CREATE,
  EISDIR: ExitCode.CANT_CREATE, EEXIST: ExitCode.CANT_CREATE, ENAMETOOLONG: ExitCode.CANT_CREATE,
  ENOSPC: ExitCode.IO_ERROR, EDQUOT: ExitCode.IO_ERROR, EIO: ExitCode.IO_ERROR, EFBIG: ExitCode.IO_ERROR,
  EMFILE: ExitCode.IO_ERROR, ENFILE: ExitCode.IO_ERROR,
  ENOENT: ExitCode.INPUT_MISSING,
};

/**
 * A folder chatport meant to make that cannot be made: mkdir's ENOENT. Node 20's recursive mkdir answers a
 * read-only file system (a pod's readOnlyRootFilesystem with no volume there) with ENOENT, not EROFS; it
 * is an output or state folder that cannot be created (73), not a missing input (66).
 */
export function isUnmakeableFolder(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ENOENT' && error.syscall === 'mkdir';
}

/** A Node system error from a file operation (`ENOSPC: no space left on device, write`). */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string; syscall: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

export function exitCodeFor(error: unknown): ExitCode {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'INTERRUPTED') {
    const signal = (error as { signal?: string }).signal;
    return signal === 'SIGINT' ? ExitCode.SIGINT : ExitCode.SIGTERM;
  }
  if (isSystemError(error)) return isUnmakeableFolder(error) ? ExitCode.CANT_CREATE : (bySystemCode[error.code] ?? ExitCode.INTERNAL);
  if (typeof code !== 'string') return ExitCode.INTERNAL;
  for (const [pattern, exit] of byCode) if (pattern.test(code)) return exit;
  return ExitCode.INTERNAL;
}
