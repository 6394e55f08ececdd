import type { Command } from 'commander';
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
import { buildProgram, type RegisterCommand } from './program-base.js';

export { mapCommanderError } from './program-base.js';

/** Every command, in the order the help lists them. */
export const ALL_COMMANDS: readonly RegisterCommand[] = [
  registerDemo,
  registerImport,
  registerValidate,
  registerVerify,
  registerStatus,
  registerSchema,
  registerSandboxCommand,
  registerPing,
  registerJobs,
  registerExport,
  registerMigrate,
  registerReport,
  registerRuns,
  registerApi,
  registerFunctions,
];

/** The program with every command (the help, and tests); the CLI itself loads one: command-loaders.ts. */
export function createProgram(ctx: CliContext): Command {
  return buildProgram(ctx, ALL_COMMANDS);
}
