/**
 * Which days `chatport export` writes: `--date`, `--since/--until`, or `--incremental` (the days due since
 * the state folder's last window). Flags win over the pipeline file; the date also comes from
 * CHATPORT_EXPORT_DATE (a scheduler's logical date).
 */
import { refuseFolderOnPseudoFs } from '../../shared/pseudo-fs.js';
import {
  checkStateFolderWritable, checkStateScope, defaultStateDir, dueWindow, nothingToDoMessage, readIncrementalState, resolveWindow, saveIncrementalState,
  type ExportPipelineFile, type ExportWindow, type IncrementalScope,
} from '../../pipeline/export/index.js';
import { parseWindowBound } from '../../pipeline/export/export-window.js';
import { UsageError } from '../../shared/errors.js';

export type RunWindow =
  | { kind: 'window'; window: ExportWindow; incremental?: { dir: string } }
  | { kind: 'nothing-to-do'; message: string };

export async function resolveRunWindow(
  datasetArg: string | undefined, flags: Record<string, unknown>, file: ExportPipelineFile | undefined, env: NodeJS.ProcessEnv, scope: IncrementalScope, nowMs: number,
): Promise<RunWindow> {
  const since = (flags.since as string | undefined) ?? file?.since;
  const until = (flags.until as string | undefined) ?? file?.until;
  const date = (flags.date as string | undefined) ?? env.CHATPORT_EXPORT_DATE ?? file?.date;
  const dateSource = flags.date !== undefined ? '--date' : env.CHATPORT_EXPORT_DATE !== undefined ? '$CHATPORT_EXPORT_DATE' : 'date in the pipeline file';
  if (!(flags.incremental ?? file?.incremental)) return { kind: 'window', window: resolveWindow({ date, dateSource, since, until }, nowMs) };

  if (flags.date !== undefined || until !== undefined) throw new UsageError('--incremental picks its own window (the days due since the last run): drop --date and --until');
  const dir = (flags.state as string | undefined) ?? file?.state ?? defaultStateDir(file?.name ?? datasetArg ?? 'all');
  refuseFolderOnPseudoFs(dir, 'the state folder');
  const state = await readIncrementalState(dir);
  if (state) checkStateScope(state, scope, dir);
  const window = dueWindow(state, nowMs, since === undefined ? undefined : parseWindowBound(since, '--since'));
  if (!window) return { kind: 'nothing-to-do', message: nothingToDoMessage(state, nowMs) };
  await checkStateFolderWritable(dir);
  return { kind: 'window', window, incremental: { dir } };
}

/** After every dataset was published: remember the window (atomically). */
export async function rememberWindow(run: RunWindow, scope: IncrementalScope, runId: string, nowMs: number): Promise<void> {
  if (run.kind === 'window' && run.incremental) await saveIncrementalState(run.incremental.dir, scope, run.window, runId, nowMs);
}
