import { isChatportError } from '../shared/errors.js';
import { ExitCode, exitCodeFor, isSystemError } from '../shared/exit-codes.js';
import { stringifyJson } from '../shared/lossless-json.js';
import { scrubSecrets } from '../shared/secrets.js';
import { failureMessage } from '../shared/thrown-message.js';

/** What the top-level catch says about a failure: one line for people, one object for `--json`. */
export interface FailureOutput {
  exitCode: ExitCode;
  /** `chatport: <what failed, where> — <what to do>`, plus the stack when asked for or when it is a bug. */
  text: string;
  json: { error: { code: string; message: string; exitCode: number; hint?: string; details?: Record<string, unknown> } };
}

/** What to do, per exit code, when the message itself does not say it. */
const HINTS: Partial<Record<ExitCode, string>> = {
  [ExitCode.CANT_CREATE]: 'check that the folder exists, is a folder and is writable (an import\'s state folder: --state; an export\'s: --to, --rejects-dir, --state)',
  [ExitCode.IO_ERROR]: 'free space or repair the disk that holds it, then run the same command again',
  [ExitCode.UNAVAILABLE]: 'check that --api-url names the Management API and that it is up; then run the same command again',
  // Worded for every command: an import resumes from its state, an export starts new jobs.
  [ExitCode.TEMPORARY]: 'run the same command again later (an import resumes where it stopped)',
  [ExitCode.SIGINT]: 'run the same command again (an import resumes from its saved state)',
  [ExitCode.SIGTERM]: 'run the same command again (an import resumes from its saved state)',
  [ExitCode.INTERNAL]: 'this is a bug in chatport; please report it with the lines above',
};

/** Error codes whose message already says what to do, or for which the exit code's hint would mislead. */
const NO_HINT = new Set(['STATE_CORRUPT', 'OUTPUT_FORBIDDEN', 'SANDBOX_PORT_IN_USE']);

/** Hints of error codes whose exit code's hint would point at the wrong thing (an export's output, not state or the API). */
const S3_UNAVAILABLE_HINT = 'check that the S3 endpoint is up and reachable; then run the same command again';

const HINTS_BY_CODE: Readonly<Record<string, (details: Record<string, unknown>) => string>> = {
  OUTPUT_WRITE_FAILED: (details) =>
    String(details.root ?? details.target ?? '').startsWith('s3://')
      ? 'check that the bucket exists and that the credentials may write to it; then run the same command again'
      : 'check that the --to folder exists, is a folder and is writable; then run the same command again',
  OUTPUT_CONCURRENT_WRITE: () => 'let the other run end (one export per dataset and date at a time: concurrencyPolicy Forbid); then run the same command again',
  OUTPUT_UNAVAILABLE: () => S3_UNAVAILABLE_HINT,
  INPUT_UNAVAILABLE: () => S3_UNAVAILABLE_HINT,
  // An export starts new jobs on every run; there is no state to resume.
  API_EXPORT_URL_EXPIRED: () => 'run the same command again: it starts new export jobs, with fresh links',
};

function hintOf(error: unknown, code: string, exitCode: ExitCode): string | undefined {
  if (NO_HINT.has(code)) return undefined;
  const byCode = HINTS_BY_CODE[code];
  if (byCode) return byCode(isChatportError(error) ? error.details : {});
  return HINTS[exitCode];
}

/** A failure's code and words as every summary names it: chatport's code, a system error's own (ENOSPC), else INTERNAL (a bug). */
export function failureCodeAndMessage(error: unknown): { code: string; message: string } {
  const code = isChatportError(error) ? error.code : isSystemError(error) ? error.code : 'INTERNAL';
  return { code, message: scrubSecrets(failureMessage(error)) };
}

/**
 * The failure as people and machines get it; the stack only for bugs or when `debug`. Print `json` with
 * `jsonText`, which scrubs secrets from the details too.
 */
export function describeFailure(error: unknown, options: { debug: boolean }): FailureOutput {
  const exitCode = exitCodeFor(error);
  const { code, message } = failureCodeAndMessage(error);
  const hint = hintOf(error, code, exitCode);
  const showStack = options.debug || exitCode === ExitCode.INTERNAL;
  const stack = showStack && error instanceof Error && error.stack ? `\n${scrubSecrets(error.stack)}` : '';
  const prefix = exitCode === ExitCode.INTERNAL ? 'chatport: internal error: ' : 'chatport: ';
  const text = `${prefix}${message}${hint ? ` — ${hint}` : ''}${stack}\n`;
  const details = isChatportError(error) ? error.details : undefined;
  return { exitCode, text, json: { error: { code, message, exitCode, ...(hint ? { hint } : {}), ...(details && Object.keys(details).length > 0 ? { details } : {}) } } };
}

/** The `--json` error object as one line of text, int64 ids exact, secrets scrubbed. */
export function jsonText(output: FailureOutput): string {
  return `${scrubSecrets(stringifyJson(output.json))}\n`;
}
