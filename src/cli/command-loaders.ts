import type { Command } from 'commander';
import type { CliContext } from './context.js';
import { commandNameOf } from './command-name.js';
import { buildProgram, type RegisterCommand } from './program-base.js';

/**
 * Each top-level command's module, loaded only when the command line names it. All of them together
 * take about a second of CPU to load (the import, migration, verification and export pipelines, every
 * source), so `chatport export`, `ping` or `sandbox` would pay for what they never run: about 0.6 s each,
 * 12% of a 1M-row export. A test checks this table against program.ts's list.
 */
export const COMMAND_MODULES: ReadonlyMap<string, () => Promise<RegisterCommand>> = new Map([
  ['demo', async () => (await import('./commands/demo.js')).registerDemo],
  ['import', async () => (await import('./commands/import.js')).registerImport],
  ['validate', async () => (await import('./commands/validate.js')).registerValidate],
  ['verify', async () => (await import('./commands/verify.js')).registerVerify],
  ['status', async () => (await import('./commands/status.js')).registerStatus],
  ['schema', async () => (await import('./commands/schema.js')).registerSchema],
  ['sandbox', async () => (await import('./commands/sandbox.js')).registerSandboxCommand],
  ['ping', async () => (await import('./commands/ping.js')).registerPing],
  ['jobs', async () => (await import('./commands/jobs.js')).registerJobs],
  ['export', async () => (await import('./commands/export.js')).registerExport],
  ['migrate', async () => (await import('./commands/migrate.js')).registerMigrate],
  ['report', async () => (await import('./commands/report.js')).registerReport],
  ['runs', async () => (await import('./commands/runs.js')).registerRuns],
  ['api', async () => (await import('./commands/api.js')).registerApi],
  ['functions', async () => (await import('./commands/functions.js')).registerFunctions],
  ['runtime', async () => (await import('./commands/functions.js')).registerFunctions],
]);

/**
 * The program for this command line: only the named command when it is one of ours; every command
 * otherwise (no command, `help`, a misspelt one, which commander then answers with the closest name).
 */
export async function createProgramFor(ctx: CliContext, argv: readonly string[]): Promise<Command> {
  const name = commandNameOf(argv);
  const load = name === undefined ? undefined : COMMAND_MODULES.get(name);
  if (load !== undefined) return buildProgram(ctx, [await load()]);
  return (await import('./program.js')).createProgram(ctx);
}
