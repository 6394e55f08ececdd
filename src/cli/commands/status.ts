import type { Command } from 'commander';
import { readRunStatus } from '../../pipeline/import/read-status.js';
import type { CliContext } from '../context.js';
import { loadPipelineFile } from '../pipeline-file.js';

/** `chatport status`: where the pipeline's latest run stands (reads the state folder only). */
export function registerStatus(program: Command, ctx: CliContext): void {
  program
    .command('status')
    .description('show where the latest run of a pipeline stands')
    .argument('<pipeline>', 'pipeline file (YAML)')
    .option('--state <dir>', 'state folder (default .chatport/<pipeline name>)')
    .option('--json', 'print as JSON')
    .action(async (path: string, options: { state?: string; json?: boolean }) => {
      const config = await loadPipelineFile(path, ctx.env, ctx.logger, 'warn');
      const view = await readRunStatus(options.state ?? config.state);
      if (options.json) {
        ctx.stdout.write(`${JSON.stringify(view, null, 2)}\n`);
        return;
      }
      const out = [`pipeline ${config.name}, state ${view.stateDir}`];
      if (view.state === 'none') out.push('no run yet');
      else {
        out.push(`run ${view.runId}, attempt ${view.attempt}: ${view.state === 'ended' ? 'ended (the next import starts a new run)' : 'unfinished (the next import resumes it)'}`);
        for (const [stage, s] of Object.entries(view.stages)) {
          if (s.chunksWritten === 0 && !s.done) continue;
          out.push(`  ${stage.padEnd(9)} ${s.done ? 'done' : s.inputRead ? 'input read' : 'reading'}  chunks ${s.chunksDone}/${s.chunksWritten} done  in flight ${s.partsInFlight}  refused ${s.refused}`);
        }
        if (view.lastReport) out.push(`last report: ${view.lastReport.status}, ${view.lastReport.totals.imported} imported, ${view.lastReport.totals.rejected} rejected (${view.lastReport.runDir}/report.json)`);
      }
      ctx.stdout.write(`${out.join('\n')}\n`);
    });
}
