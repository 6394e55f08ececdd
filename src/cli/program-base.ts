import { Command, CommanderError } from 'commander';
import { UsageError } from '../shared/errors.js';
import type { CliContext } from './context.js';
import { adoptOldConnectionNames, misspeltVariables, misspeltWarning, oldNamesWarning } from './connection-env.js';
import { addHelpExamples } from './help-examples.js';

/** What each file under ./commands exports: adds its command (or commands) to the program. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;

/**
 * The commander program with the given commands. Each command lives in its own file under ./commands and
 * registers itself; commands do their work through the library (src/index.ts) and print through `ctx`.
 * No command is imported here: program.ts gives all of them, command-loaders.ts the one a command line names.
 */
export function buildProgram(ctx: CliContext, commands: readonly RegisterCommand[]): Command {
  const program = new Command('chatport')
    .description('Bulk import and export for the Chat Platform Management API')
    .version(ctx.version, '-V, --version')
    .option('--debug', 'log at debug level and print stack traces with errors (also CHATPORT_LOG_LEVEL=debug)')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) })
    .exitOverride();
  // Before any command runs (not for --help): the wave-1 CHAT_* names still count, with one warning.
  program.hook('preAction', () => {
    const adopted = adoptOldConnectionNames(ctx.env);
    if (adopted.length > 0) ctx.logger.warn({ renamed: adopted }, oldNamesWarning(adopted));
    const misspelt = misspeltVariables(ctx.env);
    if (misspelt.length > 0) ctx.logger.warn({ misspelt }, misspeltWarning(misspelt));
  });
  for (const register of commands) register(program, ctx);
  addHelpExamples(program);
  return program;
}

/**
 * Commander reports usage problems by throwing, after printing its own message; turn those into our
 * error, let help/version through. A bare `chatport` (or `chatport jobs`) prints the help and exits 64,
 * as git and npm print their usage and fail when given no command.
 */
export function mapCommanderError(error: unknown): unknown {
  if (!(error instanceof CommanderError)) return error;
  if (error.exitCode === 0) return null;
  if (error.code === 'commander.help') return new UsageError('a command is needed (see the help above)', { commanderCode: error.code });
  return new UsageError(error.message.replace(/^error: /, ''), { commanderCode: error.code });
}
