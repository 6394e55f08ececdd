import { pino, type Logger, type DestinationStream } from 'pino';
import { scrubSecrets } from './secrets.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** pino level; default `info`, or `CHATPORT_LOG_LEVEL`. */
  level?: string;
  /** Where JSON lines go; default stderr (stdout is for results). */
  destination?: DestinationStream | NodeJS.WritableStream;
  /** Fields bound to every line, e.g. `{ runId }`. */
  bindings?: Record<string, unknown>;
}

/** Secret-looking fields, redacted by pino before serialization. */
const REDACT_PATHS = [
  'clientSecret', '*.clientSecret', 'client_secret', '*.client_secret',
  'accessToken', '*.accessToken', 'access_token', '*.access_token',
  'token', '*.token', 'secretAccessKey', '*.secretAccessKey', 'sessionToken', '*.sessionToken',
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'password', '*.password',
];

/**
 * The one pino logger factory: JSON, one event per line, to stderr. Every line passes through
 * `scrubSecrets` last, so a secret that slipped into a message or an error is still removed.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = (options.destination ?? pino.destination({ fd: 2, sync: false })) as DestinationStream;
  const logger = pino(
    {
      level: options.level ?? process.env.CHATPORT_LOG_LEVEL ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      hooks: { streamWrite: (line: string) => scrubSecrets(line) },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return options.bindings ? logger.child(options.bindings) : logger;
}

/** A logger that writes nothing, for library callers that pass none. */
export function createSilentLogger(): Logger {
  return pino({ level: 'silent' });
}
