import type { Command } from 'commander';
import { readRunStatus, type RunStatusView } from '../../pipeline/import/read-status.js';
import { exitCodeForReport, formatStageTable, type RunReport } from '../../pipeline/report.js';
import { readShardedStatus, shardCountRuns, type ShardCountRun, type ShardedStatus } from '../../pipeline/shards/combined-status.js';
import { parseShardCount } from '../../pipeline/shards/shard-spec.js';
import { notStartedPhrase } from '../../pipeline/shards/shard-state.js';
import type { CliContext } from '../context.js';
import { loadPipelineFile } from '../pipeline-file.js';

/** `chatport status`: where the pipeline's latest run stands (reads the state folder only). */
export function registerStatus(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('show where the latest run of a pipeline stands (with --shards N: every shard, and the run as one)')
    .argument('<pipeline>', 'pipeline file (YAML)')
    .option('--state <dir>', 'state folder (default .chatport/<pipeline name>)')
    .option('--shards <n>', 'the run was split over n shards (--shard i/n): show each and add them up')
    .option('--json', 'print as JSON')
    .action(async (path: string, options: { state?: string; shards?: string; json?: boolean }) => {
      const config = await loadPipelineFile(path, ctx.env, ctx.logger, 'ignore');
      const stateDir = options.state ?? config.state;
      const view = options.shards === undefined ? await readRunStatus(stateDir, config) : await readShardedStatus(stateDir, parseShardCount(options.shards), config);
      if (options.json) ctx.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
      else if ('shards' in view) ctx.stdout.write(formatSharded(config.name, stateDir, view));
      else ctx.stdout.write(`pipeline ${config.name}, state ${view.stateDir}\n${[...formatRun(view), ...shardedHint(view.state === 'none' ? await shardCountRuns(stateDir) : [])].join('\n')}\n`);
    });
}

function formatRun(view: RunStatusView, indent = ''): string[] {
  if (view.state === 'none') return [`${indent}no run yet`];
  const out = [`${indent}run ${view.runId}, attempt ${view.attempt}: ${view.state === 'ended' ? 'ended (the next import starts a new run)' : 'unfinished (the next import resumes it)'}`];
  for (const [stage, s] of Object.entries(view.stages)) {
    if (s.chunksWritten === 0 && !s.done) continue;
    out.push(`${indent}  ${stage.padEnd(9)} ${s.done ? 'done' : s.inputRead ? 'input read' : 'reading'}  chunks ${s.chunksDone}/${s.chunksWritten} done  in flight ${s.partsInFlight}  refused ${s.refused}`);
  }
  if (view.lastReport) out.push(`${indent}${lastReportLine(view.lastReport)}`);
  return out;
}

/** The last report's outcome, its verification included: a run whose platform differs ended with exit 65 whatever its status says. */
function lastReportLine(report: RunReport): string {
  const { status, totals, verification, error, runDir } = report;
  const differences = verification?.status === 'differences' ? ` (${Object.entries(verification.counts).filter(([, n]) => n > 0).map(([kind, n]) => `${n} ${kind}`).join(', ')})` : '';
  const verified = verification === undefined ? '' : `, verification ${verification.status}${differences}${verification.status === 'not-done' ? ` (${verification.error.code})` : ''}`;
  // A verification not done ended the run with its error's code (none known for one killed during it).
  const notDone = verification?.status === 'not-done' ? verification.error : undefined;
  const ended = status === 'succeeded' || status === 'completed-with-rejects';
  const exitCode = error?.exitCode ?? (notDone ? notDone.exitCode : ended ? exitCodeForReport(report) : undefined);
  return `last report: ${status}${verified}, ${totals.imported} imported, ${totals.rejected} rejected${exitCode === undefined ? '' : `, exit ${exitCode}`} (${runDir}/report.json)`;
}

/** Runs split over other shard counts under the state root: where to look instead (the count changed since). */
function shardedHint(runs: ShardCountRun[], which = 'under this state folder'): string[] {
  return runs.map((r) => `note: a run split over ${r.count} shards (${r.runId || 'no run yet'}) ${which}: see status --shards ${r.count}`);
}

function formatSharded(name: string, stateDir: string, view: ShardedStatus): string {
  const state = { done: 'done: every shard ended', unfinished: `unfinished: shard${view.waiting.length === 1 ? '' : 's'} ${view.waiting.join(', ')} still to run or resume${view.notStarted.length > 0 ? ` (${notStartedPhrase(view.notStarted, view.count)})` : ''}`, failed: 'failed: a shard\'s latest run failed (its report says why; start it again to resume)' }[view.state];
  const out = [`pipeline ${name}, ${view.count} shards under ${stateDir}: ${state}`, ...shardedHint(view.newer ?? [], 'started after every run shown here')];
  for (const shard of view.shards) out.push(`shard ${shard.index}/${view.count} (${shard.stateDir})`, ...formatRun(shard, '  '));
  out.push('', 'the run as one (users counted once, by the first shard that ran):', formatStageTable(view.combined.stages, view.combined.totals, Math.max(0, ...Object.values(view.combined.stages).map((c) => c.durationMs))));
  return `${out.join('\n')}\n`;
}
