#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createProgram, mapCommanderError } from './program.js';
import { createLogger } from '../shared/logger.js';
import { ExitCode, exitCodeFor } from '../shared/exit-codes.js';
import { isChatportError } from '../shared/errors.js';
import { scrubSecrets } from '../shared/secrets.js';
import { installSignalHandlers } from './signals.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/**
 * The one top-level catch: every failure becomes a message on stderr and an exit code from
 * src/shared/exit-codes.ts. `process.exitCode` is set rather than calling `process.exit()`, so logs drain.
 */
async function main(argv: string[]): Promise<void> {
  const logger = createLogger();
  const signals = installSignalHandlers(logger);
  let exitCode: number = ExitCode.OK;
  const program = createProgram({
    version: pkg.version,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    logger,
    signal: signals.signal,
    setExitCode: (code) => {
      exitCode = code;
    },
  });
  try {
    await program.parseAsync(argv);
  } catch (raw) {
    const error = mapCommanderError(raw);
    if (error !== null) {
      exitCode = exitCodeFor(error);
      if (isChatportError(error)) {
        // Commander already printed its own usage message.
        if (error.code !== 'USAGE') process.stderr.write(`chatport: ${scrubSecrets(error.message)}\n`);
        logger.error({ err: error.toJSON() }, 'run failed');
      } else {
        process.stderr.write(`chatport: internal error: ${scrubSecrets(String((error as Error)?.stack ?? error))}\n`);
      }
    }
  } finally {
    signals.dispose();
  }
  process.exitCode = exitCode;
}

await main(process.argv);
