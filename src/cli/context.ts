import type { Logger } from '../shared/logger.js';
import type { CliLogging } from './cli-logging.js';

/** What every command gets: where to print for people, the logger, the environment. */
export interface CliContext {
  version: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Where logs go on a terminal (the run folder's log file); absent in tests that build a program. */
  logging?: Pick<CliLogging, 'onTerminal' | 'useRunLog' | 'setNoticeWriter'>;
  /** Set by a command to tell the top level which exit code its result deserves. */
  setExitCode(code: number): void;
  /** Resolves when SIGINT/SIGTERM arrives; commands that run long pass `signal` down. */
  signal: AbortSignal;
  /** The clock of date words (`yesterday`) and incremental windows; default Date.now (tests inject one). */
  now?: () => number;
}
