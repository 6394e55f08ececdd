import { InvalidArgumentError, Option, type Command } from 'commander';
import { ulid } from 'ulid';
import { createClient } from '../../api/index.js';
import {
  EXPORT_DATASETS, daysOf, formatExportReport, readExportPipelineFile, runExport,
  type ExportDataset, type ExportPipelineFile, type RunExportOptions,
} from '../../pipeline/export/index.js';
import { ConfigError, UsageError } from '../../shared/errors.js';
import { ExitCode } from '../../shared/exit-codes.js';
import { registerSecretsOfEnvironment } from '../../shared/secrets.js';
import { checkS3Endpoint, isS3Url } from '../../shared/s3-location.js';
import { OUTPUT_FORMATS, type OutputFormat } from '../../sinks/index.js';
import { addClientFlags, clientFlagsOf, resolveClientConfig } from '../client-options.js';
import type { CliContext } from '../context.js';
import { failureSummary, nothingToDoSummary, publishedTracker, successSummary, withPublished } from './export-termination-log.js';
import { rememberWindow, resolveRunWindow } from './export-window.js';
import { writeTerminationLog } from '../termination-log.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import { positiveNumber } from '../number-flags.js';

function wholeNumber(what: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${what} must be a whole number >= 0, got "${value}"`);
    return Number(value);
  };
}

function datasetsOf(value: string | undefined, file: ExportPipelineFile | undefined): ExportDataset[] {
  const given = value ?? file?.datasets;
  if (given === undefined) throw new UsageError('name the dataset to export: messages, users or all (or pass --pipeline <file>)');
  if (given === 'all') return [...EXPORT_DATASETS];
  if (Array.isArray(given)) return given;
  if ((EXPORT_DATASETS as readonly string[]).includes(given)) return [given as ExportDataset];
  throw new UsageError(`unknown dataset "${given}": expected messages, users or all`, { dataset: given });
}

/** Where the S3 endpoint in use was set, as the user wrote it. */
function endpointSource(flags: Record<string, unknown>, file: ExportPipelineFile | undefined, env: CliContext['env']): string {
  if (flags.s3Endpoint !== undefined) return '--s3-endpoint';
  if (file?.s3?.endpoint !== undefined) return 's3.endpoint in the pipeline file';
  return env.AWS_ENDPOINT_URL_S3 !== undefined ? '$AWS_ENDPOINT_URL_S3' : '$AWS_ENDPOINT_URL';
}

/** Flags win over the pipeline file. The days to export come from export-window.ts. */
function exportOptionsOf(dataset: string | undefined, flags: Record<string, unknown>, file: ExportPipelineFile | undefined, ctx: CliContext): Omit<RunExportOptions, 'date' | 'window'> {
  const to = (flags.to as string | undefined) ?? file?.to;
  if (!to) throw new UsageError('--to <dir | s3://bucket/prefix> is required (or a pipeline file with "to")');
  const env = ctx.env;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  // The command may run with an environment of its own (a library caller's): its secrets too.
  registerSecretsOfEnvironment(env);
  const endpoint = (flags.s3Endpoint as string | undefined) ?? file?.s3?.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  if (endpoint && isS3Url(to)) checkS3Endpoint(endpoint, endpointSource(flags, file, env));
  const region = (flags.s3Region as string | undefined) ?? file?.s3?.region;
  const maxFileMb = flags.maxFileMb as number | undefined;
  const maxRejects = (flags.maxRejects as number | undefined) ?? file?.rejects?.max;
  const rejectsDir = (flags.rejectsDir as string | undefined) ?? file?.rejects?.dir;
  const runId = (flags.runId as string | undefined) ?? file?.runId;
  const pollSeconds = (flags.pollInterval as number | undefined) ?? file?.job?.pollIntervalSeconds;
  const timeoutSeconds = (flags.jobTimeout as number | undefined) ?? file?.job?.timeoutSeconds;
  return {
    datasets: datasetsOf(dataset, file),
    to,
    format: ((flags.format as OutputFormat | undefined) ?? file?.format ?? 'parquet'),
    // Made here, not in runExport, so that a failure summary can name the run too.
    runId: runId ?? ulid(),
    timestampUnit: (flags.timestampUnit as 'ms' | 'us' | undefined) ?? file?.timestampUnit ?? 'us',
    ...(maxFileMb !== undefined ? { maxFileBytes: Math.round(maxFileMb * 1024 * 1024) } : file?.maxFileBytes ? { maxFileBytes: file.maxFileBytes } : {}),
    ...(file?.parquet ? { parquet: file.parquet } : {}),
    ...(file?.text ? { text: file.text } : {}),
    ...(rejectsDir ? { rejectsDir } : {}),
    ...(maxRejects !== undefined ? { maxRejects } : {}),
    s3: {
      ...(endpoint ? { endpoint } : {}),
      ...(region ? { region } : {}),
      ...(file?.s3?.forcePathStyle !== undefined ? { forcePathStyle: file.s3.forcePathStyle } : {}),
      // Read here (not by the SDK from process.env) so the command sees the same environment as the rest.
      ...(accessKeyId && secretAccessKey
        ? { credentials: { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) } }
        : {}),
    },
    job: {
      ...(pollSeconds !== undefined ? { pollIntervalMs: pollSeconds * 1000 } : {}),
      ...(timeoutSeconds !== undefined ? { timeoutMs: timeoutSeconds * 1000 } : {}),
    },
    signal: ctx.signal,
  };
}

/**
 * `chatport export messages|users|all --to <dir | s3://bucket/prefix> --format parquet|ndjson|csv`:
 * the nightly analytics export (docs/export.md). Exit codes: 0 done, 2 done with rejected rows, 99
 * (--incremental) no day due, 3 an
 * export job FAILED (nothing published), 65 too many rejects or a damaged file, 69/75 the service (or the
 * S3 output), a deadline or an expired link, 73 the output cannot be written, 77 credentials refused, 78
 * configuration, 143/130 stopped by a signal (nothing more published).
 */
export function registerExport(program: Command, ctx: CliContext): void {
  addClientFlags(
    program
      .command('export')
      .description('export message and user analytics into warehouse-ready files (Parquet, NDJSON.gz, CSV.gz)')
      .argument('[dataset]', 'messages, users or all'),
  )
    .option('--to <target>', 'output root: a directory or s3://bucket/prefix')
    .addOption(new Option('--format <format>', 'output format (default: parquet)').choices(OUTPUT_FORMATS))
    .option('--date <date>', 'export the messages of this UTC day: YYYY-MM-DD, an ISO timestamp, today or yesterday (default: $CHATPORT_EXPORT_DATE, else yesterday, the previous full day)')
    .option('--since <date>', 'export the whole UTC days [since, until), one dt= partition per day (YYYY-MM-DD or an ISO midnight)')
    .option('--until <date>', 'end of the window, excluded (default: today 00:00Z, so whole days up to yesterday)')
    .option('--incremental', `export the days due since the last run (state in --state); exit ${ExitCode.NOTHING_TO_DO} when none is due`)
    .option('--state <dir>', 'incremental state folder (default: .chatport/export-<pipeline name or dataset>)')
    .option('--run-id <id>', 'run id in file names (default: a new ULID)')
    .option('--pipeline <file>', 'read the settings from an export pipeline file; flags win')
    .option('--s3-endpoint <url>', 'S3-compatible endpoint (default: $AWS_ENDPOINT_URL_S3 or $AWS_ENDPOINT_URL, else AWS)')
    .option('--s3-region <region>', 'S3 region (default: the AWS SDK chain)')
    .addOption(new Option('--timestamp-unit <unit>', 'TIMESTAMP unit in the output (default: us)').choices(['ms', 'us']))
    .option('--max-file-mb <mb>', 'roll data files past this size (default: 128)', positiveNumber('--max-file-mb', 'megabytes'))
    .option('--rejects-dir <dir>', 'a local folder for rejected rows (default: <to>/_rejects; for S3 that prefix in the store)')
    .option('--max-rejects <n>', 'fail (exit 65, nothing of that dataset published) past this many rejected rows', wholeNumber('--max-rejects'))
    .option('--poll-interval <seconds>', 'first pause between job polls; it grows up to 15 s (default: 1)', positiveNumber('--poll-interval'))
    .option('--job-timeout <seconds>', 'give up waiting for an export job after this long (default: 3600)', positiveNumber('--job-timeout'))
    .option('--json', 'print the report as JSON')
    .action(async (dataset: string | undefined, flags: Record<string, unknown>) => {
      const published = publishedTracker();
      let context: { runId?: string; date?: string } = {};
      try {
        const file = flags.pipeline ? await readExportPipelineFile(flags.pipeline as string, ctx.env) : undefined;
        const now = ctx.now ?? Date.now;
        const base = exportOptionsOf(dataset, flags, file, ctx);
        const scope = { to: base.to, format: base.format, datasets: base.datasets };
        const run = await resolveRunWindow(dataset, flags, file, ctx.env, scope, now());
        if (run.kind === 'nothing-to-do') {
          ctx.stdout.write(flags.json ? `${JSON.stringify({ status: 'nothing-to-do', message: run.message })}\n` : `${run.message}\n`);
          await writeTerminationLog(ctx.env, nothingToDoSummary(run.message));
          ctx.setExitCode(ExitCode.NOTHING_TO_DO);
          return;
        }
        const options: RunExportOptions = { ...base, window: run.window };
        context = { date: daysOf(run.window).at(-1)!, ...(options.runId ? { runId: options.runId } : {}) };
        const fileApi = file?.api;
        const clientFlags = clientFlagsOf(flags);
        const config = resolveClientConfig(
          {
            apiUrl: clientFlags.apiUrl ?? fileApi?.url,
            tokenUrl: clientFlags.tokenUrl ?? fileApi?.tokenUrl,
            clientId: clientFlags.clientId ?? fileApi?.clientId,
            pathPrefix: clientFlags.pathPrefix ?? fileApi?.pathPrefix,
          },
          ctx.env,
        );
        if (config instanceof ConfigError) throw config;
        const client = createClient(config, { logger: ctx.logger });
        try {
          const report = await runExport({ ...options, onDatasetPublished: published.dataset, onPartitionPublished: published.partition }, { client, logger: ctx.logger });
          // Published (rejected rows would be rejected again): the window is done either way.
          await rememberWindow(run, scope, report.runId, now());
          const exitCode = report.totals.rowsRejected > 0 ? ExitCode.COMPLETED_WITH_REJECTS : ExitCode.OK;
          ctx.stdout.write(flags.json ? `${stringifyJson(report)}\n` : formatExportReport(report));
          await writeTerminationLog(ctx.env, successSummary(report, exitCode));
          ctx.setExitCode(exitCode);
        } finally {
          await client.close();
        }
      } catch (error) {
        await writeTerminationLog(ctx.env, failureSummary(error, context, published.list()));
        throw withPublished(error, published.list());
      }
    });
}
