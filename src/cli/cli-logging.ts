import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { createLogger, type Logger } from '../shared/logger.js';
import { noticeLine } from './notice-line.js';

/**
 * Where the CLI's logs go. Off a terminal: JSON lines on stderr, as schedulers collect them. On a terminal:
 * JSON lines into the run folder's `log.ndjson` (lines logged before the run folder is known are kept and
 * written first), and warnings and errors shown as one readable line each — above the live progress area
 * while one is drawn — so the screen never holds JSON.
 */
export interface CliLogging {
  logger: Logger;
  /** True when logs are kept off the screen (stderr is a terminal). */
  readonly onTerminal: boolean;
  /** From now on, log lines go to this file (on a terminal; off one, this does nothing). */
  useRunLog(path: string): void;
  /** While a live area is drawn, readable notices go through `write` (which puts them above it). */
  setNoticeWriter(write: ((line: string) => void) | undefined): void;
  /** The failure that ends the command, for the log (the top-level catch printed it for people already). */
  recordFailure(error: Record<string, unknown>): void;
  close(): Promise<void>;
}

/** The run folder's log file, on a terminal. */
export const RUN_LOG_FILE = 'log.ndjson';

/** The width a table for `stream` must fit, or undefined when it is not a terminal (a file, a pipe). */
export function terminalWidth(stream: NodeJS.WritableStream): number | undefined {
  const tty = stream as Partial<NodeJS.WriteStream>;
  return tty.isTTY ? tty.columns || 80 : undefined;
}

/** Lines kept in memory until the run folder is known; a command that never has one drops them. */
const EARLY_LINES_LIMIT = 10_000;
/** pino's numbers: warnings and errors are shown on a terminal; with --debug, every line. */
const WARN = 40;
const DEBUG = 20;

class TerminalLogDestination {
  private early: string[] = [];
  private file: WriteStream | undefined;
  private failed = false;
  noticeWriter: ((line: string) => void) | undefined;
  /** While set, lines go to the file only (the failure the top level has already shown). */
  quiet = false;

  constructor(private readonly terminal: NodeJS.WriteStream, private readonly minLevel: number) {}

  write(line: string): void {
    if (this.file) this.file.write(line);
    else if (this.early.length < EARLY_LINES_LIMIT) this.early.push(line);
    if (this.quiet) return;
    const notice = noticeLine(line, this.minLevel);
    if (notice === undefined) return;
    if (this.noticeWriter) this.noticeWriter(notice);
    else this.terminal.write(`${notice}\n`);
  }

  attach(path: string): void {
    if (this.file || this.failed) return;
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch {
      this.failed = true; // the run itself reports a state folder it cannot write
      return;
    }
    this.file = createWriteStream(path, { flags: 'a' });
    this.file.on('error', () => {
      this.failed = true;
      this.file = undefined;
    });
    for (const line of this.early) this.file.write(line);
    this.early = [];
  }

  async close(): Promise<void> {
    const file = this.file;
    this.file = undefined;
    if (file) await new Promise<void>((resolve) => file.end(resolve));
  }
}

export function createCliLogging(options: { terminal?: NodeJS.WriteStream; level?: string }): CliLogging {
  const level = options.level ? { level: options.level } : {};
  if (!options.terminal) {
    const logger = createLogger(level);
    return {
      logger, onTerminal: false,
      useRunLog: () => undefined,
      setNoticeWriter: () => undefined,
      recordFailure: (err) => logger.error({ err }, 'run failed'),
      close: async () => undefined,
    };
  }
  const destination = new TerminalLogDestination(options.terminal, options.level === 'debug' ? DEBUG : WARN);
  // pino writes synchronously to an object with `write`, so the order of notices and progress holds.
  const logger = createLogger({ ...level, destination: destination as unknown as NodeJS.WritableStream });
  return {
    logger, onTerminal: true,
    useRunLog: (path) => destination.attach(path),
    setNoticeWriter: (write) => {
      destination.noticeWriter = write;
    },
    recordFailure: (err) => {
      destination.quiet = true;
      logger.error({ err }, 'run failed');
      destination.quiet = false;
    },
    close: () => destination.close(),
  };
}
