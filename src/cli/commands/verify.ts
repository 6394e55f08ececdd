import type { Command } from 'commander';
import { once } from 'node:events';
import { exportWaitOf, formatVerification, runVerify, verificationJsonPieces } from '../../pipeline/verify/index.js';
import { positiveNumber } from '../number-flags.js';
import { UsageError } from '../../shared/errors.js';
import { exitCodeForVerification } from '../../pipeline/report.js';
import { addClientFlags } from '../client-options.js';
import type { CliContext } from '../context.js';
import { createPipelineClient } from '../pipeline-client.js';
import { loadPipelineFile } from '../pipeline-file.js';
import { readExistingUsers } from '../../pipeline/import/existing-users.js';
import { parseShardCount } from '../../pipeline/shards/shard-spec.js';
import { findRunsToVerify, type RunsToVerify } from '../../pipeline/shards/shard-runs.js';

/** `--sample n` (or import's `--verify-sample n`): a whole number of messages; absent, `auto` (run-verify.ts: AUTO_CONTENT_SAMPLE). */
export function parseSampleFlag(value: string | undefined, flag = '--sample'): number | 'auto' {
  if (value === undefined) return 'auto';
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag} takes a whole number of messages, not "${String(value)}"`);
  return n;
}

/** Differences a run (or shard) still to resume explains: said before them, so they are not taken for a loss. */
export function unfinishedNote(run: Pick<RunsToVerify, 'unfinished' | 'unfinishedRun'> | undefined): string {
  const which = run?.unfinished ? `the latest run of shard${run.unfinished.length === 1 ? '' : 's'} ${run.unfinished.join(', ')} has` : run?.unfinishedRun ? `the latest run (${run.unfinishedRun}) has` : undefined;
  if (which === undefined) return '';
  const where = run?.unfinished ? 'status --shards says where it stands' : 'status says where it stands';
  return `note: ${which} not ended (killed, failed or stopped): what it has not sent yet shows as missing; run the same import again to resume it (${where})\n`;
}

/** `chatport verify`: what the platform holds against the source; exit 0 when exact, 65 when anything differs (2 when only messages deleted after their import: exitCodeForVerification). */
export function registerVerify(program: Command, ctx: CliContext): void {
  addClientFlags(
    program
      .command('verify')
      .description('compare what the platform holds with the source: users, channels, members, messages (count, order, content)')
      .argument('<pipeline>', 'pipeline file (YAML)'),
  )
    .option('--state <dir>', 'state folder (default .chatport/<pipeline name>): the latest run\'s rejects are not expected, its folder gets verify.json')
    .option('--sample <n>', 'also compare n messages in full (body, properties), picked the same way on every run; 0: none (default: 200 when the source has up to 100,000 messages)')
    .option('--shards <n>', 'the run was split over n shards (--shard i/n): verify the whole pipeline against all their runs')
    .option('--job-timeout <seconds>', 'give up waiting for the messages export job after this long: exit 75 (default: 3600)', positiveNumber('--job-timeout'))
    .option('--json', 'print the result as JSON')
    .action(async (path: string, options: { state?: string; sample?: string; shards?: string; json?: boolean; jobTimeout?: number; [flag: string]: unknown }) => {
      const config = await loadPipelineFile(path, ctx.env, ctx.logger);
      const sample = parseSampleFlag(options.sample);
      const stateDir = options.state ?? config.state;
      const run = await findRunsToVerify(stateDir, options.shards === undefined ? undefined : parseShardCount(options.shards));
      // A trial run is verified against the part of the input it took.
      if (run?.trial) config.trial = run.trial;
      const matched = run ? await readExistingUsers(run.usersRunDir) : undefined;
      if (matched) config.matchedUsers = matched;
      const client = createPipelineClient(config, options, ctx);
      try {
        const result = await runVerify(
          { config, sample, ...exportWaitOf(options.jobTimeout === undefined ? undefined : options.jobTimeout * 1000), ...(run ? { rejectsFiles: run.rejectsFiles, channelIdFiles: run.channelIdFiles, stateDirs: run.stateDirs, verifiedRunIds: run.runIds, outDir: run.runDir } : {}) },
          { client, logger: ctx.logger, signal: ctx.signal },
        );
        if (options.json) {
          const head = { pipeline: config.name, ...(run?.unfinished ? { unfinishedShards: run.unfinished } : {}), ...(run?.unfinishedRun ? { unfinishedRun: run.unfinishedRun } : {}), ...result.summary };
          // Every difference, read back from the differences file: they are not all held in memory.
          try {
            for (const piece of verificationJsonPieces(head, result.allDifferences())) if (!ctx.stdout.write(piece)) await once(ctx.stdout, 'drain');
          } finally {
            await result.close();
          }
        }
        else ctx.stdout.write(`verification of ${config.name}${run ? ` (${run.label})` : ''}\n${unfinishedNote(run)}${formatVerification(result.summary, result.differences)}`);
        await result.close();
        if (result.summary.status !== 'exact') ctx.setExitCode(exitCodeForVerification(result.summary));
      } finally {
        await client.close();
      }
    });
}
