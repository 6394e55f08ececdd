import { Command, CommanderError } from 'commander';
import { UsageError } from '../shared/errors.js';
import type { CliContext } from './context.js';

/**
 * Builds the commander program. Each command lives in its own file under ./commands and registers
 * itself here; commands do their work through the library (src/index.ts) and print through `ctx`.
 */
export function createProgram(ctx: CliContext): Command {
  const program = new Command('chatport')
    .description('Bulk import and export for the Chat Platform Management API')
    .version(ctx.version, '-V, --version')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) })
    .exitOverride();
  const commands: Array<(program: Command, ctx: CliContext) => void> = [];
  for (const register of commands) register(program, ctx);
  return program;
}

/** Commander reports usage problems by throwing; turn those into our error, let help/version through. */
export function mapCommanderError(error: unknown): unknown {
  if (!(error instanceof CommanderError)) return error;
  if (error.exitCode === 0) return null;
  return new UsageError(error.message.replace(/^error: /, ''), { commanderCode: error.code });
}
