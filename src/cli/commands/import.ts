import { join } from 'node:path';
import type { Command } from 'commander';
import type { PipelineConfig, TrialSpec } from '../../config/index.js';
import { reportOf } from '../../pipeline/import/partial-report.js';
import { runImport } from '../../pipeline/import/run-import.js';
import { exitCodeForReport, formatReportTable, type RunReport } from '../../pipeline/report.js';
import { UsageError } from '../../shared/errors.js';
import { addClientFlags } from '../client-options.js';
import { createPipelineClient } from '../pipeline-client.js';
import { parseSampleFlag } from './verify.js';
import type { CliContext } from '../context.js';
import { loadPipelineFile } from '../pipeline-file.js';
import { createProgressReporter } from '../progress.js';
import { RUN_LOG_FILE, terminalWidth } from '../cli-logging.js';
import { writeTerminationLog } from '../termination-log.js';
import { exitCodeFor } from '../../shared/exit-codes.js';
import { failureCodeAndMessage } from '../failure.js';
import { shardOf } from '../../pipeline/shards/shard-spec.js';
import { positiveNumber } from '../number-flags.js';

export interface ImportCommandOptions {
  state?: string;
  dryRun?: boolean;
  restart?: boolean;
  maxRejects?: string;
  json?: boolean;
  /** `--no-verify` sets false. */
  verify?: boolean;
  verifySample?: string;
  limit?: string;
  sample?: string;
  shard?: string;
  shards?: string;
  jobTimeout?: number;
  [flag: string]: unknown;
}

/** Adds the options `import` and the shorthands built on it (`migrate slack`) share. */
export function addImportOptions(command: Command): Command {
  return addClientFlags(command)
    .option('--state <dir>', 'state folder (default .chatport/<pipeline name>)')
    .option('--dry-run', 'read, map, validate and write the chunks and the report; upload nothing (exit 2 when records would be rejected, as the import)')
    .option('--restart', 'abandon an unfinished run and start a new one (imported items are recognised and skipped)')
    .option('--max-rejects <n>', 'stop once a stage has more than n rejected records (default: the pipeline file, else no limit)')
    .option('--json', 'print the report as JSON on stdout instead of a table')
    .option('--job-timeout <seconds>', 'give up waiting for one import job (or verification\'s export job) after this long: exit 75; the next run polls the same import job again (default: 3600)', positiveNumber('--job-timeout'))
    .option('--no-verify', 'skip the verification against the platform that follows a run ending without error')
    .option('--verify-sample <n>', 'verification: also compare n messages in full (body, properties); 0: none (default: 200 when the source has up to 100,000 messages)')
    .option('--limit <n>', 'trial run: only the first n records of each stage (the rest counted as skipped)')
    .option('--sample <n>', 'trial run: only n channels (picked by a hash of their keys) with their members and messages, and every user')
    .option('--shard <i/n>', 'one worker of a run split over n: its channels (by a hash of their keys) with their members and messages, and every user; state in <state>/shard-i-of-n (docs/sharding.md)')
    .option('--shards <n>', 'the shard count, with the index from JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch)');
}

/** `--limit n` and `--sample n`: positive whole numbers. */
function trialOf(options: ImportCommandOptions): TrialSpec | undefined {
  const count = (flag: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} takes a whole number of at least 1, not "${value}"`);
    return n;
  };
  const limit = count('--limit', options.limit);
  const sample = count('--sample', options.sample);
  if (limit === undefined && sample === undefined) return undefined;
  return { ...(limit !== undefined ? { limit } : {}), ...(sample !== undefined ? { sample } : {}) };
}

/**
 * Runs a resolved pipeline as the CLI does: client from flags, then the pipeline's api block, then the
 * CHATPORT_* environment; progress on stderr; the report on stdout; the exit code from the outcome.
 */
export async function runImportCommand(config: PipelineConfig, options: ImportCommandOptions, ctx: CliContext): Promise<RunReport> {
  const maxRejects = options.maxRejects === undefined ? undefined : Number(options.maxRejects);
  if (maxRejects !== undefined && !(Number.isInteger(maxRejects) && maxRejects >= 0))
    throw new UsageError(`--max-rejects takes a whole number, not "${String(options.maxRejects)}"`);
  const dryRun = options.dryRun === true;
  const jobTimeoutMs = options.jobTimeout === undefined ? undefined : options.jobTimeout * 1000;
  const sample = parseSampleFlag(options.verifySample, '--verify-sample');
  const trial = trialOf(options);
  if (trial) config.trial = trial;
  const shard = shardOf(options, ctx.env);
  if (shard) config.shard = shard;
  const client = dryRun ? undefined : createPipelineClient(config, options, ctx, options.state);
  const progress = createProgressReporter({ stream: process.stderr, logger: ctx.logger, ...(ctx.logging ? { notices: ctx.logging.setNoticeWriter } : {}) });
  const printReport = (report: RunReport) => ctx.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatReportTable(report, terminalWidth(ctx.stdout)));
  try {
    const report = await runImport(
      {
        config, mode: dryRun ? 'dry-run' : 'import', restart: options.restart === true,
        ...(options.state ? { stateDir: options.state } : {}), ...(maxRejects !== undefined ? { maxRejects } : {}),
        verify: options.verify === false ? false : { sample, ...(jobTimeoutMs !== undefined ? { exportTimeoutMs: jobTimeoutMs } : {}) },
        ...(jobTimeoutMs !== undefined ? { uploader: { jobTimeoutMs } } : {}),
      },
      {
        ...(client ? { client } : {}), logger: ctx.logger, signal: ctx.signal, onProgress: (s, c) => progress.onProgress(s, c),
        onRunStarted: (runDir) => ctx.logging?.useRunLog(join(runDir, RUN_LOG_FILE)),
      },
    );
    progress.stop();
    printReport(report);
    const exitCode = exitCodeForReport(report);
    ctx.setExitCode(exitCode);
    await writeTerminationLog(ctx.env, { command: 'import', pipeline: config.name, status: report.status, exitCode, runId: report.runId, totals: report.totals });
    return report;
  } catch (error) {
    // A run that failed mid-way still says what it sent and imported before the failure.
    const partial = reportOf(error);
    // With --json this report is the error object: its `error` holds code, message and exitCode.
    if (partial) {
      progress.stop();
      printReport(partial);
    }
    const { code, message } = failureCodeAndMessage(error);
    // A run whose data is in but whose verification could not be done says so, as its report does.
    const status = code === 'INTERRUPTED' ? 'interrupted' : partial?.status === 'succeeded' ? 'succeeded' : 'failed';
    await writeTerminationLog(ctx.env, {
      command: 'import', pipeline: config.name, status, exitCode: exitCodeFor(error),
      // Which run to resume, and how far it got: the pod's reason is often all a scheduler's user reads.
      ...(partial ? { runId: partial.runId, totals: partial.totals } : {}),
      ...(partial?.verification ? { verification: partial.verification.status } : {}),
      error: { code, message },
    });
    throw error;
  } finally {
    progress.stop();
    await client?.close();
  }
}

export function registerImport(program: Command, ctx: CliContext): void {
  addImportOptions(
    program
      .command('import')
      .description('import users, channels, members and messages as a pipeline file says; resumes an unfinished run')
      .argument('<pipeline>', 'pipeline file (YAML), e.g. pipelines/csv-example.yaml'),
  ).action(async (path: string, options: ImportCommandOptions) => {
    const config = await loadPipelineFile(path, ctx.env, ctx.logger, options.dryRun ? 'warn' : 'error');
    await runImportCommand(config, options, ctx);
  });
}
