/**
 * The error base every chatport failure derives from.
 *
 * Every error carries a stable string `code` (never parse messages), a `transient` mark that retry logic
 * reads, and optional structured `details`. Wrap with `cause` so the chain survives.
 */
export interface ChatportErrorOptions {
  /** Stable, machine-readable code, e.g. `API_RATE_LIMITED`. */
  code: string;
  /** True when the same operation may succeed if tried again later. */
  transient?: boolean;
  /** Structured facts about the failure (ids, paths, fields); must never hold secrets. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class ChatportError extends Error {
  readonly code: string;
  readonly transient: boolean;
  readonly details: Record<string, unknown>;

  constructor(message: string, options: ChatportErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.transient = options.transient ?? false;
    this.details = options.details ?? {};
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, transient: this.transient, message: this.message, details: this.details };
  }
}

/** Matches by class or, across module copies, by the `code`/`name` shape. */
export function isChatportError(value: unknown): value is ChatportError {
  return (
    value instanceof ChatportError ||
    (value instanceof Error && typeof (value as { code?: unknown }).code === 'string' && 'transient' in value)
  );
}

/** Configuration or pipeline-file problems; never transient. */
export class ConfigError extends ChatportError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(message, { code: 'CONFIG_INVALID', details, cause });
  }
}

/** A command line that cannot be understood. */
export class UsageError extends ChatportError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(message, { code: 'USAGE', details });
  }
}

/** Input that should exist does not (file, glob with no match, S3 key). */
export class InputMissingError extends ChatportError {
  constructor(message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(message, { code: 'INPUT_MISSING', details, cause });
  }
}

/** The run was stopped by a signal, or (`abort`) by the AbortSignal a library caller passed. */
export class InterruptedError extends ChatportError {
  constructor(readonly signal: 'SIGINT' | 'SIGTERM' | 'abort', cause?: unknown) {
    super(signal === 'abort' ? 'interrupted: the caller aborted the run' : `interrupted by ${signal}`, { code: 'INTERRUPTED', transient: true, details: { signal }, cause });
  }
}

/** A run's own stop signal, and `release` to call when the run ends. */
export interface RunInterruption {
  signal: AbortSignal;
  release(): void;
}

/**
 * The caller's AbortSignal, with a reason that is always a ChatportError: runs throw the reason they were
 * stopped with, and a plain `controller.abort()` (a DOMException) would otherwise read as a bug (exit 1).
 * `release` takes the link off the caller's signal: a service passes its one shutdown signal to every run,
 * which would otherwise keep each run alive, and warn past ten.
 */
export function interruptionSignal(signal: AbortSignal | undefined): RunInterruption {
  const controller = new AbortController();
  if (signal === undefined) return { signal: controller.signal, release: () => undefined };
  const forward = () => controller.abort(isChatportError(signal.reason) ? signal.reason : new InterruptedError('abort', signal.reason));
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', forward) };
}
