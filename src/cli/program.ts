import { Command, CommanderError } from 'commander';
import { UsageError } from '../shared/errors.js';
import type { CliContext } from './context.js';
import { registerPing } from './commands/ping.js';
import { registerJobs } from './commands/jobs.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerImport } from './commands/import.js';
import { registerDemo } from './commands/demo.js';
import { registerValidate } from './commands/validate.js';
import { registerStatus } from './commands/status.js';
import { registerSchema } from './commands/schema.js';
import { registerExport } from './commands/export.js';
import { registerMigrate } from './commands/migrate.js';
import { registerVerify } from './commands/verify.js';
import { registerRuns } from './commands/runs.js';
import { registerReport } from './commands/report.js';
import { registerApi } from './commands/api.js';
import { registerFunctions } from './commands/functions.js';
import { adoptOldConnectionNames, oldNamesWarning } from './connection-env.js';
import { addHelpExamples } from './help-examples.js';

/**
 * Builds the commander program. Each command lives in its own file under ./commands and registers
 * itself here; commands do their work through the library (src/index.ts) and print through `ctx`.
 */
export function createProgram(ctx: CliContext): Command {
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
  });
  const commands: Array<(program: Command, ctx: CliContext) => void> = [registerDemo, registerImport, registerValidate, registerVerify, registerStatus, registerSchema, registerSandboxCommand, registerPing, registerJobs, registerExport, registerMigrate];
  commands.push(registerReport);
  commands.push(registerRuns);
  commands.push(registerApi);
  commands.push(registerFunctions);
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
