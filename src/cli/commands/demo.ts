import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { createClient } from '../../api/index.js';
import type { CliContext } from '../context.js';
import { connectionEnvFor, withoutConnectionVariables } from '../connection-env.js';
import { loadPipelineFile } from '../pipeline-file.js';
import { runImportCommand } from './import.js';
import { migratePipelinePath, slackPipelinePath, type MigrateSource } from './migrate.js';
import { formatExportReport, runExport } from '../../pipeline/export/index.js';
import { listFiles } from '../list-files.js';
import { demoChatFunction } from './demo-function.js';
import type { ChatportClient } from '../../api/index.js';

const PIPELINES = fileURLToPath(new URL('../../../pipelines/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../../fixtures/', import.meta.url));
const relativeToPackage = (path: string) => path.slice(path.indexOf('fixtures/'));

/**
 * `chatport demo`: the main job on the embedded default. Starts the sandbox in this process, imports the
 * bundled CSV fixtures and the sample Slack, Discord and Mattermost exports through the real pipeline (over HTTP, as against the
 * platform), runs the nightly analytics export into Parquet, and shows the reports, what the platform
 * holds and where the output is.
 */
export function registerDemo(program: Command, ctx: CliContext): void {
  program
    .command('demo')
    .description('the main job on the built-in sandbox: import the bundled CSV, Slack, Discord and Mattermost samples, run the nightly export, show the result')
    .option('--state <dir>', 'state folder (default: a new temporary folder)')
    .action(async (options: { state?: string }) => {
      // People read the demo's output on stdout; its JSON logs stay quiet unless asked for.
      ctx.logger.level = ctx.env.CHATPORT_LOG_LEVEL ?? 'warn';
      const { startSandbox } = await import('../../sandbox/index.js');
      const sandbox = await startSandbox({ port: 0, logger: ctx.logger });
      const client = createClient({ apiUrl: sandbox.url, auth: { kind: 'client-credentials', tokenUrl: sandbox.tokenUrl, ...sandbox.credentials } });
      try {
        const state = options.state ?? (await mkdtemp(join(tmpdir(), 'chatport-demo-')));
        // The bundled pipelines read the connection from the environment: the sandbox's, none of the shell's.
        const env = { ...withoutConnectionVariables(ctx.env), ...connectionEnvFor(sandbox) };
        ctx.stdout.write(`sandbox: ${sandbox.url}\n\n== import pipelines/csv-example.yaml (some rows are bad on purpose) ==\n`);
        const config = await loadPipelineFile(join(PIPELINES, 'csv-example.yaml'), env, ctx.logger);
        const report = await runImportCommand(config, { state: join(state, 'csv-example') }, { ...ctx, env });
        ctx.stdout.write(`rejects with file, line and reason: ${report.rejectsFile}\n`);

        ctx.stdout.write(`\n== migrate the sample Slack export (fixtures/slack/sample) ==\n`);
        const slack = await loadPipelineFile(slackPipelinePath(), { ...env, SLACK_EXPORT: join(FIXTURES, 'slack', 'sample') }, ctx.logger);
        const slackReport = await runImportCommand(slack, { state: join(state, 'slack') }, { ...ctx, env });

        const others: Array<[MigrateSource, string, string]> = [
          ['discord', 'DISCORD_EXPORT', join(FIXTURES, 'discord', 'sample')],
          ['mattermost', 'MATTERMOST_EXPORT', join(FIXTURES, 'mattermost', 'sample', 'export.jsonl')],
        ];
        const otherReports = [];
        for (const [source, variable, path] of others) {
          ctx.stdout.write(`\n== migrate the sample ${source === 'discord' ? 'Discord' : 'Mattermost'} export (${relativeToPackage(path)}) ==\n`);
          const pipeline = await loadPipelineFile(migratePipelinePath(source), { ...env, [variable]: path }, ctx.logger);
          otherReports.push(await runImportCommand(pipeline, { state: join(state, source) }, { ...ctx, env }));
        }

        ctx.stdout.write(`\n== the platform now holds ==\n`);
        let users = 0;
        for await (const _ of client.users.list({ pageSize: 100 })) users++;
        const byType = new Map<string, { channels: number; messages: number }>();
        for await (const channel of client.channels.list({ pageSize: 100 })) {
          const entry = byType.get(channel.type) ?? { channels: 0, messages: 0 };
          entry.channels++;
          for await (const _ of client.channels.messages(channel.id, { pageSize: 100 })) entry.messages++;
          byType.set(channel.type, entry);
        }
        ctx.stdout.write(`  ${users} users\n`);
        for (const [type, e] of byType) ctx.stdout.write(`  ${e.channels} ${type} channels with ${e.messages} messages\n`);

        ctx.stdout.write(`\n== a chat function fires on a sent message ==\n`);
        const general = await findChannel(client, 'crm-general');
        if (general !== undefined) for (const line of await demoChatFunction(client, general, 'alice')) ctx.stdout.write(`${line}\n`);

        const warehouse = join(state, 'warehouse');
        const date = new Date().toISOString().slice(0, 10);
        ctx.stdout.write(`\n== nightly analytics export of ${date} into ${warehouse} (Parquet) ==\n`);
        const exported = await runExport(
          { datasets: ['messages', 'users'], to: warehouse, format: 'parquet', date, job: { pollIntervalMs: 100 }, signal: ctx.signal },
          { client, logger: ctx.logger },
        );
        ctx.stdout.write(formatExportReport(exported));
        for (const file of await listFiles(warehouse)) ctx.stdout.write(`  ${file}\n`);
        // The demo's rejects are on purpose: it succeeded when every record was accounted for.
        ctx.setExitCode([report, slackReport, ...otherReports].every((r) => r.totals.balanced) ? 0 : 1);
      } finally {
        await client.close();
        await sandbox.close();
      }
    });
}

async function findChannel(client: ChatportClient, name: string): Promise<number | bigint | undefined> {
  for await (const channel of client.channels.list({ pageSize: 100 })) if (channel.name === name) return channel.id;
  return undefined;
}
