import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { loadPipelineFile } from '../pipeline-file.js';
import { addImportOptions, runImportCommand, type ImportCommandOptions } from './import.js';

/**
 * The pipeline file `migrate slack` runs, next to the installed package: this file sits at
 * src/cli/commands/migrate.ts (tsx) or dist/cli/commands/migrate.js (built), both three folders below
 * the package root that holds pipelines/.
 */
export function slackPipelinePath(): string {
  return fileURLToPath(new URL('../../../pipelines/slack.yaml', import.meta.url));
}

/** `chatport migrate slack <export>`: `chatport import pipelines/slack.yaml` with SLACK_EXPORT set to the export. */
export function registerMigrate(program: Command, ctx: CliContext): void {
  const migrate = program.command('migrate').description('migrate a whole workspace exported from another chat system');
  addImportOptions(
    migrate
      .command('slack')
      .description('import a Slack export (its .zip or unpacked folder): users, channels, members, messages; resumes an unfinished run')
      .argument('<export>', 'the Slack export: a .zip file or its unpacked folder'),
  ).action(async (exportPath: string, options: ImportCommandOptions) => {
    // Absolute, so the pipeline file (which resolves relative paths against its own folder) finds it.
    const env = { ...ctx.env, SLACK_EXPORT: resolve(exportPath) };
    const config = await loadPipelineFile(slackPipelinePath(), env, ctx.logger, options.dryRun ? 'warn' : 'error');
    await runImportCommand(config, options, ctx);
  });
}
