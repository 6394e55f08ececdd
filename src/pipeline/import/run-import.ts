import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { pathExists } from '../../shared/path-exists.js';
import { pipeline } from 'node:stream/promises';
import { ulid } from 'ulid';
import type { ChatportClient } from '../../api/index.js';
import type { PipelineConfig } from '../../config/index.js';
import { realNow, type Now, type Sleep } from '../../shared/async.js';
import { UsageError, interruptionSignal, isChatportError } from '../../shared/errors.js';
import { failureMessage } from '../../shared/thrown-message.js';
import { refuseFolderOnPseudoFs } from '../../shared/pseudo-fs.js';
import { createSilentLogger, type Logger } from '../../shared/logger.js';
import type { ChannelIdLookup } from '../../transform/index.js';
import { reportedError, sumTotals, type RunReport, type RunStatus, type RunWarning, type StageCounts } from '../report.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import type { JournalEvent, StageName } from '../state/events.js';
import { discardingJournal, openJournal, readJournalEvents, type Journal } from '../state/journal.js';
import { acquireLock } from '../state/lock.js';
import { RunPaths } from '../state/run-paths.js';
import { RunStateFold, foldRunState, type RunState } from '../state/run-state.js';
import { claimStateFolder } from '../state/state-owner.js';
import { collectChannelKeys, resolveChannelIds, type ChannelKeys } from './channel-ids.js';
import { checkMappedFields } from './check-mapped-fields.js';
import { createClientUploader, type UploaderOptions } from './client-uploader.js';
import { addFailedStageCounts, attachReport } from './partial-report.js';
import { preflightInputs } from './preflight.js';
import { checkFinishedStageInputs, journaledListings, type InputListing } from './input-listing.js';
import { openHeldRecords } from './held-records.js';
import { readStageRecords, sourceOptionsOf } from './read-stage.js';
import { resolveExistingUsers } from './existing-users.js';
import { StageChecks } from './stage-checks.js';
import { forOneRun, sourceUserNamesOf } from './user-names.js';
import { runStage } from './stage-runner.js';
import { describeTrial, sameTrial, trialMismatch } from './trial.js';
import { skippedFolderOf } from './skipped-listing.js';
import { verifyImportRun } from '../verify/index.js';
import { refuseShardCountChange } from '../shards/count-change.js';
import { acquireRunStartLock } from '../shards/run-start-lock.js';
import { shardStateDir } from '../shards/shard-state.js';
import { writeRunPage } from '../report-html/index.js';
import type { Int64 } from '../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import { removeSpillsOfKilledRuns } from '../../shared/spill-folders.js';

export interface ImportRunOptions {
  config: PipelineConfig;
  /** State folder; default the pipeline's `state` (`.chatport/<name>`). */
  stateDir?: string;
  /** `dry-run` writes chunks and the report and uploads nothing. Default `import`. */
  mode?: 'import' | 'dry-run';
  /** Stop once more records than this are rejected in a stage (overrides the pipeline file). */
  maxRejects?: number;
  /**
   * Abandon an unfinished run instead of resuming it (e.g. after the input changed): a new run starts and
   * reads everything again. Safe: items already imported carry the same idempotency keys and are skipped.
   */
  restart?: boolean;
  /** After a signal, how long uploads under way may take to finish before they are cut. Default 20 s. */
  drainMs?: number;
  uploader?: UploaderOptions;
  /** After a run that ends without error, verify the platform against the source (docs/verify.md). Default off here; the CLI turns it on. */
  verify?: false | { sample?: number | 'auto'; exportTimeoutMs?: number };
}

export interface ImportRunDeps {
  /** Required unless `mode` is `dry-run`. */
  client?: ChatportClient;
  logger?: Logger;
  /** Aborted on SIGTERM/SIGINT: stop taking input, save state, end with its reason, or InterruptedError (`signal: 'abort'`) when that is no ChatportError. */
  signal?: AbortSignal;
  now?: Now;
  onProgress?: (stage: StageName, counts: StageCounts) => void;
  /** Called once the run folder is known, before the run's first log line (the CLI keeps its log there). */
  onRunStarted?: (runDir: string) => void;
  /** Held messages' keys kept in memory before they spill to disk (held-records.ts; tests make it small). */
  heldKeysInMemory?: number;
  /** Tests: pauses a run between its shard-count check and its start journaled; `sleep` while another run under the state root starts. */
  runStart?: { afterCountCheck?: () => Promise<void>; sleep?: Sleep };
}

/**
 * Runs an import pipeline, or continues the one an earlier process left unfinished. Stages go in order
 * (users → channels → members → messages); each starts when the one before has FINISHED. Returns the run
 * report (also written as report.json), also when verification found differences (`exitCodeForReport`: 65);
 * throws only for run-level failures, after saving state.
 */
export async function runImport(given: ImportRunOptions, deps: ImportRunDeps = {}): Promise<RunReport> {
  const options = { ...given, config: forOneRun(given.config) };
  const mode = options.mode ?? 'import';
  // A caller's mistake, not chatport's: a ChatportError (64) as the README promises, not a TypeError (1).
  if (mode === 'import' && !deps.client) throw new UsageError("runImport needs deps.client (createClient(…)) unless mode is 'dry-run'");
  const interruption = interruptionSignal(deps.signal);
  const env: RunEnv = { mode, logger: deps.logger ?? createSilentLogger(), now: deps.now ?? realNow, signal: interruption.signal };
  try {
    // Aborted before it began: nothing read, no run started in the state folder.
    env.signal.throwIfAborted();
    await removeSpillsOfKilledRuns(env.logger);
    const run = await openRun(options, deps, env);
    const outcome = await runStages(run, options, deps, env);
    return await closeRun(run, outcome, options, deps, env);
  } finally {
    interruption.release();
  }
}

/** What every step of a run needs: its mode, logger, clock and stop signal. */
interface RunEnv {
  mode: 'import' | 'dry-run';
  logger: Logger;
  now: Now;
  signal: AbortSignal;
}

/** A run under way: its folder (locked), its id and attempt, its state as the journal left it, its journal. */
interface OpenedRun {
  paths: RunPaths;
  lock: Awaited<ReturnType<typeof acquireLock>>;
  runId: string;
  attempt: number;
  state: RunState;
  journal: Journal<JournalEvent>;
  startedAt: number;
  logger: Logger;
  /** What each file stage's locations list in this attempt (pre-flight), journaled with the stage's end. */
  inputListings: ReadonlyMap<StageName, InputListing>;
}

/** What the stages came to: their counts, warnings, the run's status and the failure that stopped it. */
interface StagesOutcome {
  stages: Partial<Record<StageName, StageCounts>>;
  warnings: RunWarning[];
  status: RunStatus;
  failure: unknown;
}

/** Pre-flight, then the state folder locked and read: the unfinished run resumed, or a new one started. */
async function openRun(options: ImportRunOptions, deps: ImportRunDeps, env: RunEnv): Promise<OpenedRun> {
  const { config } = options;
  const { logger, signal } = env;
  // Refused before anything is sent: a missing or unreadable input (exit 66 / 65), then a mapping that
  // names a column the input does not have (exit 78).
  const sources = sourceOptionsOf(config, signal);
  const inputListings = await preflightInputs(config, sources, signal);
  for (const warning of await checkMappedFields(config, sources, signal)) logger.warn({ stage: warning.stage, path: warning.path, field: warning.field }, warning.message);
  const stateRoot = options.stateDir ?? config.state;
  // Refused before anything is read, in the common case; checked again as the run starts (startRunInFolder).
  if (env.mode === 'import' && options.restart !== true) await refuseShardCountChange(stateRoot, config.shard);
  // Each shard of a sharded run keeps its own state (and resumes alone) in a folder of its own.
  const paths = new RunPaths(shardStateDir(stateRoot, config.shard));
  refuseFolderOnPseudoFs(paths.stateDir, 'the state folder');
  const lock = await acquireLock(paths.lock);
  const opened: { journal?: Journal<JournalEvent> } = {};
  try {
    return await startRunInFolder(options, deps, env, { stateRoot, paths, lock, inputListings }, opened);
  } catch (error) {
    // Unlocked whatever failed (a damaged journal, the caller's onRunStarted): a library caller runs again in
    // this same process, where a lock it still held would refuse every later run of the folder.
    await opened.journal?.close().catch((closeError: unknown) => logger.error({ err: closeError }, 'closing the journal failed'));
    await lock.release();
    throw error;
  }
}

/** The locked folder's journal read: the unfinished run resumed, or a new one started (the journal opened into `opened`). */
async function startRunInFolder(
  options: ImportRunOptions,
  deps: ImportRunDeps,
  env: RunEnv,
  locked: Pick<OpenedRun, 'paths' | 'lock' | 'inputListings'> & { stateRoot: string },
  opened: { journal?: Journal<JournalEvent> },
): Promise<OpenedRun> {
  const { paths } = locked;
  // Folded as it is read: a migration's journal holds millions of events.
  const fold = new RunStateFold();
  let lastRunPipeline: string | undefined;
  const { validBytes } = await readJournalEvents<JournalEvent>(paths.journal, (e, line) => {
    fold.add(e, line);
    if (e.t === 'run-started') lastRunPipeline = e.pipeline;
  });
  if (env.mode !== 'import') return journalRunStart(options, deps, env, locked, { fold, validBytes, lastRunPipeline }, opened);
  // From the count check to the start journaled, no other run under the root starts (run-start-lock.ts).
  const startLock = await acquireRunStartLock(locked.stateRoot, deps.runStart?.sleep, env.signal);
  try {
    if (options.restart !== true) await refuseShardCountChange(locked.stateRoot, options.config.shard);
    await deps.runStart?.afterCountCheck?.();
    return await journalRunStart(options, deps, env, locked, { fold, validBytes, lastRunPipeline }, opened);
  } finally {
    await startLock.release();
  }
}

/** The folder claimed and the run's start journaled, its folder made: from then on the next run's count check sees it. */
async function journalRunStart(
  options: ImportRunOptions,
  deps: ImportRunDeps,
  env: RunEnv,
  locked: Pick<OpenedRun, 'paths' | 'lock' | 'inputListings'>,
  read: { fold: RunStateFold; validBytes: number; lastRunPipeline: string | undefined },
  opened: { journal?: Journal<JournalEvent> },
): Promise<OpenedRun> {
  const { config } = options;
  const { mode, logger, now } = env;
  const { paths, lock, inputListings } = locked;
  const { fold, validBytes, lastRunPipeline } = read;
  await claimStateFolder(paths.stateDir, config, lastRunPipeline);
  const state = fold.state;
  const unfinished = mode === 'import' && state.runId !== undefined && !state.ended;
  const resuming = unfinished && options.restart !== true;
  if (resuming && !sameTrial(state.trial, config.trial)) throw trialMismatch(state.trial, config.trial);
  // A stage whose input was read to its end is not read again: input changed since would go unseen.
  if (resuming) checkFinishedStageInputs(journaledListings(state), inputListings);
  const runId = resuming ? state.runId! : ulid();
  const attempt = resuming ? state.attempt + 1 : 1;
  // A dry run leaves the import's run state alone: its events go nowhere.
  const journal = (opened.journal = mode === 'import' ? await openJournal<JournalEvent>(paths.journal, validBytes) : discardingJournal<JournalEvent>());
  if (unfinished && !resuming) await journal.append({ t: 'run-ended', runId: state.runId!, status: 'abandoned', at: iso(now()) });
  const startedAt = now();
  const runLogger = logger.child({ runId, pipeline: config.name });
  deps.onRunStarted?.(paths.runDir(runId));
  if (mode === 'import') {
    await journal.append({ t: 'run-started', runId, pipeline: config.name, at: iso(startedAt), attempt, ...(config.trial ? { trial: config.trial } : {}) });
    // A shard's newest run is its newest run folder (combined-status.ts newestRunOf).
    await mkdir(paths.runDir(runId), { recursive: true });
  }
  runLogger.info({ attempt, resuming, stateDir: paths.stateDir, mode }, resuming ? 'resuming the unfinished run' : 'starting a run');
  return { paths, lock, runId, attempt, state: resuming ? state : foldRunState([]), journal, startedAt, logger: runLogger, inputListings };
}

/** Every stage in order; a failure or a signal stops the run and is kept for the report, never thrown here. */
async function runStages(run: OpenedRun, options: ImportRunOptions, deps: ImportRunDeps, env: RunEnv): Promise<StagesOutcome> {
  const { config } = options;
  const { mode, signal } = env;
  const { paths, runId, logger } = run;
  // Uploads get a grace period after a signal; job polling stops at once (the journal has the job ids).
  const uploads = new AbortController();
  const onAbort = () => setTimeout(() => uploads.abort(signal.reason), options.drainMs ?? 20_000).unref();
  signal.addEventListener('abort', onAbort, { once: true });
  const uploader = mode === 'import' ? createClientUploader(deps.client!, { signal, uploadSignal: uploads.signal, logger }, options.uploader) : undefined;

  const outcome: StagesOutcome = { stages: {}, warnings: [], status: mode === 'dry-run' ? 'dry-run' : 'succeeded', failure: undefined };
  const { stages, warnings } = outcome;
  const sources = sourceOptionsOf(config, signal);
  let channelIds: ChannelIdLookup | undefined;
  const latest: Partial<Record<StageName, StageCounts>> = {};
  const checks = new StageChecks(config, mode === 'import' ? deps.client : undefined, signal, () => sourceUserNamesOf(config, (users) => readStageRecords(config, users, { sources, signal })));
  try {
    if (mode === 'import') await matchExistingUsers(config, deps.client!, paths.runDir(runId), sources, signal);
    for (const stageConfig of config.stages) {
      const stage = stageConfig.stage;
      if ((stage === 'members' || stage === 'messages') && channelIds === undefined)
        channelIds = await channelLookup(config, paths, runId, mode, deps.client, sources, signal);
      logger.info({ stage }, 'stage starting');
      const held = mode === 'import' && !run.state.stages[stage].done ? await openHeldRecords({ client: deps.client!, config, stage: stageConfig, paths, runId, sources, signal, logger, heldKeysInMemory: deps.heldKeysInMemory }) : undefined;
      // Closed also when the stage fails: the held messages' files and spilled keys are let go.
      try {
        // After the held records: they may take over records of this pipeline's older versions first.
        const hooks = await checks.forStage(stageConfig);
        if (stage !== 'users') useHeldUserNames(config, checks);
        stages[stage] = await runStage({
          config, stage: stageConfig, runId, paths, state: run.state.stages[stage], journal: run.journal, mode, sources, signal, now: env.now,
          logger,
          inputListing: run.inputListings.get(stage),
          ...hooks,
          ...(uploader ? { uploader, client: deps.client! } : {}),
          ...(channelIds ? { channelIds } : {}),
          ...(held ? { held } : {}),
          ...(options.maxRejects !== undefined ? { maxRejects: options.maxRejects } : {}),
          onProgress: (s, c) => {
            latest[s] = c;
            deps.onProgress?.(s, c);
          },
          onWarning: (w) => {
            warnings.push(w);
            logger.warn({ stage: w.stage, path: w.path, field: w.field }, w.message);
          },
        });
      } finally {
        held?.close();
      }
      logger.info({ stage, counts: stages[stage] }, 'stage finished');
    }
    if (mode === 'import' && sumTotals(stages).rejected > 0) outcome.status = 'completed-with-rejects';
  } catch (error) {
    outcome.failure = error;
    outcome.status = signal.aborted ? 'interrupted' : 'failed';
    addFailedStageCounts(stages, latest);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return outcome;
}

/**
 * The report written, the run's end journaled and its folder unlocked, then the verification; a failure is
 * thrown last, with the report attached. A verification that could not be done is such a failure too: the
 * report (marked so) is still printed, and the exit code says why (a platform failure: 69/75, retry).
 */
async function closeRun(run: OpenedRun, outcome: StagesOutcome, options: ImportRunOptions, deps: ImportRunDeps, env: RunEnv): Promise<RunReport> {
  const { config } = options;
  const { mode, signal } = env;
  const { paths, runId, journal, logger } = run;
  const { status, failure } = outcome;
  let report: RunReport;
  try {
    report = await writeRunOutputs({ config, paths, runId, attempt: run.attempt, status, stages: outcome.stages, warnings: outcome.warnings, startedAt: run.startedAt, endedAt: env.now(), failure, apiVersion: deps.client?.serverInfo.apiVersion });
    if (mode === 'import' && (status === 'succeeded' || status === 'completed-with-rejects'))
      await journal.append({ t: 'run-ended', runId, status, at: report.endedAt });
  } catch (error) {
    // Unended in the journal, the run resumes next time; its folder must not stay locked meanwhile.
    await releaseRun(run).catch((releaseError: unknown) => logger.error({ err: releaseError }, 'releasing the state folder failed'));
    throw primaryFailure(failure, error, logger, paths.report(runId));
  }
  await releaseRun(run);
  logger.info({ status, totals: report.totals }, 'run ended');
  let stop = failure;
  try {
    if (options.verify && mode === 'import' && failure === undefined)
      stop = await verifyImportRun(report, paths.report(runId), { config, client: deps.client!, logger, stateDir: paths.stateDir, signal, ...options.verify });
  } finally {
    await writeRunPage(report, paths.journal, logger);
  }
  if (stop !== undefined) {
    if (isChatportError(stop)) stop.details.report = report.runDir;
    throw attachReport(stop, report);
  }
  return report;
}

/** The journal closed and the state folder's lock released, the lock also when closing fails: another host must not wait for its staleness. */
async function releaseRun(run: OpenedRun): Promise<void> {
  try {
    await run.journal.close();
  } finally {
    await run.lock.release();
  }
}

/**
 * The failure to report when ending the run failed too (writing the report: a full disk): the run's own
 * failure, which decides the exit code, its message and details saying the other too (logged beside it);
 * the other alone otherwise.
 */
function primaryFailure(failure: unknown, endingError: unknown, logger: Logger, reportPath: string): unknown {
  if (failure === undefined) return endingError;
  logger.error({ err: endingError }, 'writing the run\'s report failed; the run\'s own failure follows');
  // No report is attached to say how the run ended: the failure says that there is none, and why.
  const why = failureMessage(endingError);
  if (failure instanceof Error) failure.message = `${failure.message}; and the run's report ${reportPath} could not be written: ${why}`;
  if (isChatportError(failure)) failure.details.reportError = { code: (endingError as { code?: unknown }).code ?? 'INTERNAL', message: why, path: reportPath };
  return failure;
}

/**
 * After the users stage, `ref: user` names each key by the user the platform holds for it (user-names.ts):
 * the name the source gives it now may be another user's there. Once per run; nothing offline.
 */
function useHeldUserNames(config: PipelineConfig, checks: StageChecks): void {
  if (config.platformUserNames !== undefined) return;
  const held = checks.pipelineUserNames();
  if (held === undefined) return;
  config.platformUserNames = held;
}

/** onExisting: the users the platform already has, matched before anything is sent (existing-users.ts). */
async function matchExistingUsers(config: PipelineConfig, client: ChatportClient, runDir: string, sources: ReturnType<typeof sourceOptionsOf>, signal: AbortSignal): Promise<void> {
  const users = config.stages.find((s) => s.stage === 'users' && s.onExisting !== undefined);
  if (users === undefined) return;
  const readUsers = (stage: typeof users) => readStageRecords(config, stage, { sources, signal });
  const matched = await resolveExistingUsers({ client, config, users, runDir, readUsers, signal });
  if (matched) config.matchedUsers = matched;
}

async function channelLookup(
  config: PipelineConfig,
  paths: RunPaths,
  runId: string,
  mode: 'import' | 'dry-run',
  client: ChatportClient | undefined,
  sources: ReturnType<typeof sourceOptionsOf>,
  signal: AbortSignal,
): Promise<ChannelIdLookup> {
  // A resumed run found the ids before: no need to read the channels input or list channels again.
  const file = paths.channelIds(runId);
  if (mode === 'import') {
    const cached = await readFile(file, 'utf8').then((t) => parseJsonExact(t, 'bigint') as Record<string, Int64>, () => undefined);
    if (cached) return new Map(Object.entries(cached));
  }
  const channelsStage = config.stages.find((s) => s.stage === 'channels');
  const expected: ChannelKeys | undefined = channelsStage ? await collectChannelKeys(config, channelsStage, sources, signal) : undefined;
  if (mode === 'dry-run') {
    // Nothing was created: any channel the channels stage accepts stands for a placeholder id.
    return (key: string) => (expected?.keys.has(key) ? 1 : undefined);
  }
  const ids = await resolveChannelIds(client!, config.id, expected, signal);
  await writeFileAtomic(file, stringifyJson(Object.fromEntries(ids), 1));
  return ids;
}

async function writeRunOutputs(input: {
  config: PipelineConfig; paths: RunPaths; runId: string; attempt: number; status: RunStatus;
  stages: Partial<Record<StageName, StageCounts>>; warnings: RunWarning[]; startedAt: number; endedAt: number; failure: unknown; apiVersion: string | undefined;
}): Promise<RunReport> {
  const { paths, runId } = input;
  const runDir = paths.runDir(runId);
  await mkdir(runDir, { recursive: true });
  const rejectsFile = paths.rejects(runId);
  await concatenateRejects(paths, runId, Object.keys(input.stages) as StageName[], rejectsFile);
  const skippedDir = await skippedFolderOf(paths, runId, Object.keys(input.stages) as StageName[]);
  const report: RunReport = {
    runId, pipeline: input.config.name, status: input.status, attempt: input.attempt,
    startedAt: iso(input.startedAt), endedAt: iso(input.endedAt), durationMs: input.endedAt - input.startedAt,
    stages: input.stages, totals: sumTotals(input.stages), runDir, rejectsFile, ...(skippedDir ? { skippedDir } : {}),
    ...(input.apiVersion ? { apiVersion: input.apiVersion } : {}),
    ...(input.warnings.length > 0 ? { warnings: input.warnings } : {}),
    ...(input.config.trial ? { trial: { ...input.config.trial, description: describeTrial(input.config.trial) } } : {}),
    ...(input.config.shard ? { shard: input.config.shard } : {}),
  };
  if (input.failure !== undefined) report.error = reportedError(input.failure);
  await writeFileAtomic(paths.report(runId), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

/** rejects.ndjson: every stage's rejects, in stage order, so one file answers "what did not go in". */
async function concatenateRejects(paths: RunPaths, runId: string, stages: StageName[], target: string): Promise<void> {
  const out = createWriteStream(`${target}.tmp`);
  for (const stage of stages) {
    const file = paths.stageRejects(runId, stage);
    if (!(await pathExists(file))) continue;
    await pipeline(createReadStream(file), out, { end: false });
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  await rename(`${target}.tmp`, target);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
