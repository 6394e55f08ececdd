import { readdir, stat } from 'node:fs/promises';
import { pathExists } from '../shared/path-exists.js';
import { basename, join } from 'node:path';
import { InputMissingError, UsageError } from '../shared/errors.js';
import type { CliContext } from './context.js';
import { loadPipelineFile } from './pipeline-file.js';

/** Where `runs` and `report` look: a state folder, and a run in it when one was named. */
export interface RunTarget {
  stateDir: string;
  runId?: string;
}

const PIPELINE_FILE = /\.ya?ml$/i;

/**
 * `<pipeline.yaml> [run]`, `--state <dir> [run]` or both: the state folder is --state, or the pipeline file's
 * `state` (default .chatport/<name>); the other argument names a run (its id, or the id's unique start).
 */
export async function runTarget(args: readonly string[], state: string | undefined, ctx: CliContext): Promise<RunTarget> {
  if (state !== undefined) {
    // `<pipeline.yaml> --state <dir>`, as import and status take them: --state names the pipeline's folder.
    const [first, second] = PIPELINE_FILE.test(args[0] ?? '') ? args.slice(1) : args;
    if (second !== undefined) throw new UsageError(`with --state, name at most a run (got "${first}" and "${second}")`);
    return first !== undefined ? { stateDir: state, runId: first } : { stateDir: state };
  }
  const [first, second] = args;
  if (first === undefined || !PIPELINE_FILE.test(first)) throw new UsageError('name the pipeline file (chatport runs list pipeline.yaml) or the state folder (--state <dir>)');
  const config = await loadPipelineFile(first, ctx.env, ctx.logger, 'ignore');
  return second !== undefined ? { stateDir: config.state, runId: second } : { stateDir: config.state };
}

/** The run id in `ids` that `wanted` names (whole, or a start only one id has). */
export function pickRun(ids: readonly string[], wanted: string, stateDir: string): string {
  if (ids.includes(wanted)) return wanted;
  const matches = ids.filter((id) => id.toUpperCase().startsWith(wanted.toUpperCase()));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new UsageError(`"${wanted}" names ${matches.length} runs in ${stateDir}: ${matches.join(', ')}; give more of the id`);
  throw new InputMissingError(`no run "${wanted}" in ${stateDir}/runs (chatport runs list --state ${stateDir} lists them)`, { stateDir, run: wanted });
}

/**
 * `chatport report` with no pipeline file: a run folder or report.html named directly, else the run under
 * ./.chatport/*\/runs/ that `target` names (its id or the id's start), or the newest with a report.html.
 */
export async function findReportFile(target: string | undefined, cwd: string, file: string): Promise<string | undefined> {
  if (target !== undefined) {
    const info = await stat(target).catch(() => undefined);
    if (info?.isDirectory()) return (await pathExists(join(target, file))) ? join(target, file) : undefined;
    if (info?.isFile()) return basename(target) === file ? target : undefined;
  }
  const root = join(cwd, '.chatport');
  const candidates: Array<{ runId: string; path: string }> = [];
  for (const pipeline of await readdir(root).catch(() => [])) {
    for (const runId of await readdir(join(root, pipeline, 'runs')).catch(() => [])) {
      const path = join(root, pipeline, 'runs', runId, file);
      if (await pathExists(path)) candidates.push({ runId, path });
    }
  }
  candidates.sort((a, b) => a.runId.localeCompare(b.runId));
  if (target === undefined) return candidates.at(-1)?.path;
  const named = candidates.filter((c) => c.runId.toUpperCase().startsWith(target.toUpperCase()));
  return named.length === 1 ? named[0]!.path : undefined;
}
