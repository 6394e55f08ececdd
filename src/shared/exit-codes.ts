/**
 * Exit codes a scheduler can act on (sysexits-style; see README "Exit codes").
 * Kubernetes podFailurePolicy and AWS Batch evaluateOnExit key on these numbers, so they never change.
 */
export const ExitCode = {
  OK: 0,
  INTERNAL: 1,
  /** The run finished, but some records were rejected (invalid or refused by the platform). */
  COMPLETED_WITH_REJECTS: 2,
  /** Remote jobs FAILED and could not be recovered. */
  REMOTE_JOB_FAILED: 3,
  USAGE: 64,
  /** Invalid input data, or the reject threshold was exceeded. */
  DATA_INVALID: 65,
  INPUT_MISSING: 66,
  /** The service stayed unavailable after all retries. */
  UNAVAILABLE: 69,
  /** Temporary failure: rate limited past the retry budget, a deadline passed, the platform failing every job. Safe to retry later. */
  TEMPORARY: 75,
  /** Authentication or authorization failed (401/403). */
  AUTH: 77,
  CONFIG: 78,
  /** Nothing to do (Airflow's skip convention). */
  NOTHING_TO_DO: 99,
  SIGINT: 130,
  SIGTERM: 143,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Error code prefixes → exit code. The one place where failures become process results. */
const byCode: ReadonlyArray<[RegExp, ExitCode]> = [
  [/^USAGE$/, ExitCode.USAGE],
  [/^(CONFIG_|STATE_FOREIGN$)/, ExitCode.CONFIG],
  [/^INPUT_MISSING$/, ExitCode.INPUT_MISSING],
  [/^(DATA_INVALID|REJECT_LIMIT_EXCEEDED|INPUT_CHANGED|IDENTITY_AMBIGUOUS)$/, ExitCode.DATA_INVALID],
  [/^API_(UNAUTHORIZED|FORBIDDEN)$/, ExitCode.AUTH],
  [/^(API_RATE_LIMITED|API_TIMEOUT|JOB_DEADLINE_EXCEEDED|STATE_LOCKED|PLATFORM_FAILING_JOBS)$/, ExitCode.TEMPORARY],
  [/^(API_SERVER|API_NETWORK|API_UNAVAILABLE)$/, ExitCode.UNAVAILABLE],
  [/^JOB_FAILED$/, ExitCode.REMOTE_JOB_FAILED],
];

export function exitCodeFor(error: unknown): ExitCode {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === 'INTERRUPTED') {
    const signal = (error as { signal?: string }).signal;
    return signal === 'SIGINT' ? ExitCode.SIGINT : ExitCode.SIGTERM;
  }
  if (typeof code !== 'string') return ExitCode.INTERNAL;
  for (const [pattern, exit] of byCode) if (pattern.test(code)) return exit;
  return ExitCode.INTERNAL;
}
