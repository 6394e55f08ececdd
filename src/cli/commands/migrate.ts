import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { loadPipelineFile } from '../pipeline-file.js';
import { addImportOptions, runImportCommand, type ImportCommandOptions } from './import.js';

/** The exports `chatport migrate` takes: each a shorthand for `chatport import pipelines/<name>.yaml`. */
const SOURCES = {
  slack: { env: 'SLACK_EXPORT', what: 'a Slack export (its .zip or unpacked folder)', argument: 'the Slack export: a .zip file or its unpacked folder' },
  discord: {
    env: 'DISCORD_EXPORT',
    what: 'a DiscordChatExporter JSON export (a folder or .zip of channel and thread files)',
    argument: 'the Discord export: a folder or .zip of DiscordChatExporter JSON files',
  },
  mattermost: {
    env: 'MATTERMOST_EXPORT',
    what: 'a Mattermost bulk export (.jsonl, or a .zip with its attachments)',
    argument: 'the Mattermost bulk export: a .jsonl file or a .zip holding one',
  },
} as const;
export type MigrateSource = keyof typeof SOURCES;

/**
 * The pipeline file `migrate <source>` runs, next to the installed package: this file sits at
 * src/cli/commands/migrate.ts (tsx) or dist/cli/commands/migrate.js (built), both three folders below
 * the package root that holds pipelines/.
 */
export function migratePipelinePath(source: MigrateSource): string {
  return fileURLToPath(new URL(`../../../pipelines/${source}.yaml`, import.meta.url));
}

export const slackPipelinePath = (): string => migratePipelinePath('slack');

/** `chatport migrate <source> <export>`: `chatport import pipelines/<source>.yaml` with <SOURCE>_EXPORT set to the export. */
export function registerMigrate(program: Command, ctx: CliContext): void {
  const migrate = program.command('migrate').description('migrate a whole workspace exported from another chat system');
  for (const [source, { env: variable, what, argument }] of Object.entries(SOURCES)) {
    addImportOptions(
      migrate
        .command(source)
        .description(`import ${what}: users, channels, members, messages; resumes an unfinished run`)
        .argument('<export>', argument),
    ).action(async (exportPath: string, options: ImportCommandOptions) => {
      // Absolute, so the pipeline file (which resolves relative paths against its own folder) finds it.
      const env = { ...ctx.env, [variable]: resolve(exportPath) };
      const config = await loadPipelineFile(migratePipelinePath(source as MigrateSource), env, ctx.logger, options.dryRun ? 'warn' : 'error');
      await runImportCommand(config, options, ctx);
    });
  }
}
