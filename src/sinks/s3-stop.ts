/**
 * How a publication to S3 stops on the run's signal (SIGTERM). Its uploads and checks stop at once; its
 * cleanup (`abort`: delete this attempt's files, put the old `_SUCCESS` back) must still reach the store
 * after the signal, but only for a short grace, so that a store that never answers cannot keep the process
 * past a pod's grace period (SIGKILL: no report, no termination log).
 */
import { AbortMultipartUploadCommand, type S3Client } from '@aws-sdk/client-s3';
import { ChatportError } from '../shared/errors.js';
import { realSleep, type Sleep } from '../shared/async.js';

/** How long the cleanup may go on after the run's signal. */
export const CLEANUP_GRACE_MS = 5_000;

/** `client` whose every request (lib-storage's uploads included) carries `signal`. */
export function sendingWith(client: S3Client, signal: AbortSignal | undefined): S3Client {
  if (!signal) return client;
  const bound = Object.create(client) as S3Client;
  bound.send = ((command: Parameters<S3Client['send']>[0], options?: object) => client.send(command, { ...options, abortSignal: signal })) as S3Client['send'];
  return bound;
}

/**
 * The client of a lib-storage Upload: its own cleanup (AbortMultipartUpload, sent when an upload fails or
 * is stopped, so its parts do not stay stored and billed) goes by `cleanup`, everything else by `run`.
 * lib-storage throws that cleanup's failure in place of the upload's own (a part the store refused would
 * be reported as a missing s3:AbortMultipartUpload permission, 77): it goes to `abortFailed` instead.
 */
export function uploadClient(run: S3Client, cleanup: S3Client, abortFailed: (error: unknown) => void): S3Client {
  const routed = Object.create(run) as S3Client;
  routed.send = ((command: Parameters<S3Client['send']>[0], options?: object) => {
    if (!(command instanceof AbortMultipartUploadCommand)) return run.send(command, options);
    return cleanup.send(command, options).catch((error: unknown) => {
      abortFailed(error);
      return {};
    });
  }) as S3Client['send'];
  return routed;
}

export interface CleanupDeadline {
  signal: AbortSignal;
  /** The grace the deadline gives, for messages. */
  graceMs: number;
  /** The cleanup ended: the deadline's timer goes. */
  end(): void;
}

/**
 * A signal that aborts `graceMs` after the run's signal (counted from now when it has aborted already);
 * never while the run goes on, so a cleanup after an ordinary failure keeps the client's own bounds.
 */
export function cleanupDeadline(run: AbortSignal | undefined, graceMs = CLEANUP_GRACE_MS, sleep: Sleep = realSleep): CleanupDeadline {
  const deadline = new AbortController();
  const ended = new AbortController();
  const start = () =>
    sleep(graceMs, ended.signal).then(
      () => deadline.abort(new Error(`the store did not answer within ${graceMs} ms of the stop`)),
      () => undefined,
    );
  if (run?.aborted) void start();
  else run?.addEventListener('abort', start, { once: true });
  return {
    signal: deadline.signal,
    graceMs,
    end() {
      run?.removeEventListener('abort', start);
      ended.abort();
    },
  };
}

/** What a cleanup left behind when it could not finish. */
export interface LeftState {
  folderUrl: string;
  /** This attempt's data files that may still be in the folder (0 once they were deleted). */
  filesLeft: number;
  /** The date's `_SUCCESS` was there at the start and is not back. */
  successDown: boolean;
  /** The manifest already names this attempt's files. */
  manifestReplaced: boolean;
}

/**
 * The cleanup's failure, saying what state the output was left in and what the next run does: a reader
 * must not take the date for complete, and the operator must know that a rerun repairs it.
 */
export function cleanupFailure(left: LeftState, cause: unknown): ChatportError {
  const why = cause instanceof Error ? cause.message : String(cause);
  const files = left.filesLeft > 0 ? `${left.filesLeft} data file(s) of this attempt may remain there${left.manifestReplaced ? ', named by the date\'s manifest' : ', named by no manifest'}; ` : '';
  const marker = left.manifestReplaced
    ? 'the date has no _SUCCESS, so readers treat it as incomplete'
    : left.successDown
      ? 'the date\'s _SUCCESS stays down, so readers treat it as incomplete (its previous files and manifest are intact)'
      : 'the date had no _SUCCESS and still has none';
  return new ChatportError(
    `cleaning up ${left.folderUrl} did not finish (${why}): ${files}${marker}. The next export of this date removes this attempt's files and publishes the date whole, _SUCCESS last`,
    { code: 'OUTPUT_UNAVAILABLE', transient: true, details: { folder: left.folderUrl, filesLeft: left.filesLeft, successDown: left.successDown || left.manifestReplaced } },
  );
}
