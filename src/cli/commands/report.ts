import { spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { Command } from 'commander';
import { REPORT_HTML } from '../../pipeline/report-html/index.js';
import { listRuns } from '../../pipeline/runs/index.js';
import { InputMissingError } from '../../shared/errors.js';
import { pathExists } from '../../shared/path-exists.js';
import type { CliContext } from '../context.js';
import { findReportFile, pickRun, runTarget } from '../run-target.js';

/**
 * `chatport report`: the path of a run's report.html (latest by default), or with --open the page in the
 * desktop's browser through xdg-open. In a container there is no browser: the path is what helps.
 */
export function registerReport(program: Command, ctx: CliContext): void {
  program
    .command('report')
    .description('print the path of a run\'s report.html (the latest run by default), or open it')
    .argument('[args...]', '[pipeline file | run folder | report.html | run id] [run id, or its start]')
    .option('--state <dir>', 'state folder (default: the pipeline file\'s)')
    .option('--open', 'open the page with xdg-open when there is one (a desktop); the path is printed either way')
    .addHelpText('after', `
With no argument, the newest report under ./.chatport/; a run id alone is looked for there too.

Examples:
  chatport report
  chatport report 01J9ZC
  chatport report pipelines/csv-example.yaml --open
  chatport report --state .chatport/csv-example 01J9ZC`)
    .action(async (args: string[], options: { state?: string; open?: boolean }) => {
      const file = await reportFileFor(args, options.state, ctx);
      ctx.stdout.write(`${file}\n`);
      if (!options.open) return;
      if (await onPath('xdg-open', ctx.env)) spawn('xdg-open', [file], { detached: true, stdio: 'ignore' }).unref();
      else ctx.stderr.write('no xdg-open here (no desktop): open the file above in a browser\n');
    });
}

async function reportFileFor(args: string[], state: string | undefined, ctx: CliContext): Promise<string> {
  const named = args[0];
  if (state === undefined && (named === undefined || !/\.ya?ml$/i.test(named))) {
    const file = await findReportFile(named, process.cwd(), REPORT_HTML);
    if (file) return file;
    throw new InputMissingError(named === undefined ? `no ${REPORT_HTML} under ./.chatport/ (name a pipeline file, --state, or a run folder)` : `no ${REPORT_HTML} at ${named}, nor a run of that id under ./.chatport/`, { target: named ?? '.chatport' });
  }
  const target = await runTarget(args, state, ctx);
  const runs = (await listRuns(target.stateDir)).filter((r) => r.status !== 'unknown' || target.runId !== undefined);
  const runId = target.runId !== undefined ? pickRun(runs.map((r) => r.runId), target.runId, target.stateDir) : runs.at(-1)?.runId;
  if (runId === undefined) throw new InputMissingError(`no runs in ${target.stateDir}`, { stateDir: target.stateDir });
  const file = join(runs.find((r) => r.runId === runId)!.runDir, REPORT_HTML);
  if (!(await pathExists(file))) throw new InputMissingError(`run ${runId} has no ${REPORT_HTML} (it is written when a run ends; runs of older versions have report.json only)`, { file });
  return file;
}

async function onPath(command: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean))
    if (await access(join(dir, command), constants.X_OK).then(() => true, () => false)) return true;
  return false;
}
