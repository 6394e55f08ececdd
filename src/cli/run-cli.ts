import { readFileSync } from 'node:fs';
import { createProgramFor } from './command-loaders.js';
import { mapCommanderError } from './program-base.js';
import { ExitCode } from '../shared/exit-codes.js';
import { isChatportError } from '../shared/errors.js';
import { installSignalHandlers } from './signals.js';
import { describeFailure, jsonText } from './failure.js';
import { createCliLogging } from './cli-logging.js';
import { reportOf } from '../pipeline/import/partial-report.js';
import { registerSecretsOfEnvironment } from '../shared/secrets.js';
import { writeTerminationLog } from './termination-log.js';
import type { CliLogging } from './cli-logging.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * The one top-level catch: every failure becomes one readable line on stderr (the `--json` error object on
 * stdout as well) and an exit code from src/shared/exit-codes.ts. `process.exitCode` is set rather than
 * calling `process.exit()`, so logs drain.
 */
async function main(argv: string[]): Promise<void> {
  registerSecretsOfEnvironment(process.env);
  const debug = argv.includes('--debug') || process.env.CHATPORT_LOG_LEVEL === 'debug';
  const wantsJson = argv.includes('--json');
  const logging = createCliLogging({ terminal: process.stderr.isTTY === true ? process.stderr : undefined, level: debug ? 'debug' : undefined });
  const { logger } = logging;
  catchStrayFailures(logging, debug);
  const signals = installSignalHandlers(logger);
  let exitCode: number = ExitCode.OK;
  try {
    // Inside the catch: a command module that fails to load is reported like any other failure.
    const context = {
      version: pkg.version,
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      logger,
      logging,
      signal: signals.signal,
      setExitCode: (code: number) => {
        exitCode = code;
      },
    };
    const program = await createProgramFor(context, argv);
    await program.parseAsync(argv);
  } catch (raw) {
    const error = mapCommanderError(raw);
    const commanderPrinted = isChatportError(error) && error.code === 'USAGE' && error.details.commanderCode !== undefined;
    if (error !== null) {
      const failure = describeFailure(error, { debug });
      exitCode = failure.exitCode;
      // A failed import printed its report, whose `error` says the same: stdout holds one JSON document.
      if (wantsJson && !reportOf(error)) process.stdout.write(jsonText(failure));
      // Commander already printed its own message (and the help) for a command line it cannot understand.
      if (!commanderPrinted) {
        process.stderr.write(failure.text);
        logging.recordFailure(failure.json.error);
      }
    }
  } finally {
    signals.finished(exitCode);
    await logging.close();
  }
  process.exitCode = exitCode;
}

/**
 * The last resort for an error thrown where no await can catch it (inside a dependency's callback): said as
 * every failure is (one line on stderr, secrets scrubbed, the JSON log line, the termination log) instead
 * of Node's raw stack, and the process ends with its exit code (1 for a bug; a full disk is still 74).
 */
function catchStrayFailures(logging: CliLogging, debug: boolean): void {
  let failing = false;
  const fail = (error: unknown) => {
    // A second stray error while the first is being said (a rejection the first set off) adds nothing.
    if (failing) return;
    failing = true;
    const failure = describeFailure(error, { debug });
    process.stderr.write(failure.text);
    logging.recordFailure(failure.json.error);
    // Nothing may run on after this: state is unknown. The logs and the summary get a moment, no more.
    const end = () => process.exit(failure.exitCode);
    setTimeout(end, 2000).unref();
    void Promise.allSettled([logging.close(), writeTerminationLog(process.env, { status: 'failed', exitCode: failure.exitCode, error: failure.json.error })]).then(end);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}

/**
 * A reader that goes away (`chatport jobs list | head -3`) is not a failure of the command: what it
 * would still have printed is dropped and the command ends as it would have (its exit code unchanged),
 * as a Unix tool stops at SIGPIPE. Any other error writing stdout still ends the process.
 */
function ignoreClosedStdout(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** Runs the command line the process was started with; its exit code is left in `process.exitCode`. */
export async function runCli(): Promise<void> {
  ignoreClosedStdout();
  await main(process.argv);
}
