import type { Command } from 'commander';
import { formatReportTable, type RunReport } from '../../pipeline/report.js';
import { REPORT_HTML } from '../../pipeline/report-html/index.js';
import { formatPrune, formatRunList, listRuns, pruneRuns } from '../../pipeline/runs/index.js';
import { UsageError } from '../../shared/errors.js';
import type { CliContext } from '../context.js';
import { pickRun, runTarget } from '../run-target.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface StateOptions {
  state?: string;
  json?: boolean;
}

/** `chatport runs list|show|prune`: the runs a pipeline's state folder holds, and cleaning them up. */
export function registerRuns(program: Command, ctx: CliContext): void {
  const runs = program
    .command('runs')
    .description('list, show and prune the runs in a pipeline\'s state folder')
    .addHelpText('after', `
Examples:
  chatport runs list pipelines/csv-example.yaml
  chatport runs show --state .chatport/csv-example 01J9ZC
  chatport runs prune pipelines/csv-example.yaml --keep 3
  chatport runs prune --state .chatport/csv-example --older-than 7d --dry-run`);

  runs
    .command('list')
    .description('one line per run: id, start, status, attempts, duration, counts, size on disk')
    .argument('[pipeline]', 'pipeline file (YAML); or give --state')
    .option('--state <dir>', 'state folder (default: the pipeline file\'s, .chatport/<pipeline name>)')
    .option('--json', 'print as JSON')
    .action(async (pipeline: string | undefined, options: StateOptions) => {
      const { stateDir } = await runTarget(pipeline ? [pipeline] : [], options.state, ctx);
      const entries = await listRuns(stateDir);
      ctx.stdout.write(options.json ? `${JSON.stringify(entries, null, 2)}\n` : formatRunList(stateDir, entries));
    });

  runs
    .command('show')
    .description('the report of one run (default the latest)')
    .argument('[args...]', '[pipeline file] [run id, or its start]')
    .option('--state <dir>', 'state folder (default: the pipeline file\'s)')
    .option('--json', 'print report.json')
    .action(async (args: string[], options: StateOptions) => {
      const target = await runTarget(args, options.state, ctx);
      const entries = await listRuns(target.stateDir);
      const runId = target.runId !== undefined ? pickRun(entries.map((e) => e.runId), target.runId, target.stateDir) : entries.at(-1)?.runId;
      if (runId === undefined) throw new UsageError(`no runs in ${target.stateDir}`);
      const entry = entries.find((e) => e.runId === runId)!;
      const report = await readFile(join(entry.runDir, 'report.json'), 'utf8').then((t) => JSON.parse(t) as RunReport, () => undefined);
      if (options.json) {
        ctx.stdout.write(`${JSON.stringify(report ?? entry, null, 2)}\n`);
        return;
      }
      if (!report) {
        ctx.stdout.write(`run ${runId}: ${entry.status}, no report yet (chatport status shows where it stands)\n`);
        return;
      }
      ctx.stdout.write(`${formatReportTable(report)}report page: ${join(entry.runDir, REPORT_HTML)}\n`);
    });

  runs
    .command('prune')
    .description('remove finished runs\' folders (chunks, rejects, reports); never the unfinished run a resume needs')
    .argument('[pipeline]', 'pipeline file (YAML); or give --state')
    .option('--state <dir>', 'state folder (default: the pipeline file\'s)')
    .option('--keep <n>', 'keep the newest n finished runs', parseCount)
    .option('--older-than <age>', 'remove only runs that ended longer ago than this (30m, 12h, 7d, 2w)', parseAge)
    .option('--dry-run', 'print what would be removed, remove nothing')
    .option('--json', 'print as JSON')
    .action(async (pipeline: string | undefined, options: StateOptions & { keep?: number; olderThan?: number; dryRun?: boolean }) => {
      if (options.keep === undefined && options.olderThan === undefined) throw new UsageError('say which runs to remove: --keep <n> (spare the newest n), --older-than <age>, or both');
      const { stateDir } = await runTarget(pipeline ? [pipeline] : [], options.state, ctx);
      const result = await pruneRuns(stateDir, { ...(options.keep !== undefined ? { keep: options.keep } : {}), ...(options.olderThan !== undefined ? { olderThanMs: options.olderThan } : {}), dryRun: options.dryRun === true });
      ctx.stdout.write(options.json ? `${JSON.stringify({ removed: result.removed.map((r) => r.runId), bytesFreed: result.bytesFreed, dryRun: options.dryRun === true }, null, 2)}\n` : formatPrune(result, options.dryRun === true));
    });
}

function parseCount(text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`--keep takes a whole number of runs, not "${text}"`);
  return Number(text);
}

const AGE_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30m`, `12h`, `7d`, `2w` → milliseconds. */
export function parseAge(text: string): number {
  const match = /^(\d+)([mhdw])$/.exec(text.trim());
  if (!match) throw new UsageError(`--older-than takes an age such as 30m, 12h, 7d or 2w, not "${text}"`);
  return Number(match[1]) * AGE_UNITS[match[2]!]!;
}
