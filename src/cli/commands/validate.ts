import type { Command } from 'commander';
import { runValidate } from '../../pipeline/import/run-validate.js';
import { formatStageTable, skippedFolderLine } from '../../pipeline/report.js';
import { ExitCode } from '../../shared/exit-codes.js';
import type { CliContext } from '../context.js';
import { loadPipelineFile } from '../pipeline-file.js';
import { readFirstLines } from '../read-first-lines.js';

/** `chatport validate`: the whole import without the network; counts and problems, exit 65 when any. */
export function registerValidate(program: Command, ctx: CliContext): void {
  program
    .command('validate')
    .description('check a pipeline and its input offline: parse, map, validate, cross-references; counts and problems')
    .argument('<pipeline>', 'pipeline file (YAML)')
    .option('--out <dir>', 'folder for the rejects files (default: a new temporary folder)')
    .option('--show <n>', 'problems to print per stage', '10')
    .option('--json', 'print the result as JSON')
    .action(async (path: string, options: { out?: string; show: string; json?: boolean }) => {
      const config = await loadPipelineFile(path, ctx.env, ctx.logger, 'warn');
      const result = await runValidate(config, { ...(options.out ? { outDir: options.out } : {}), signal: ctx.signal });
      if (options.json) ctx.stdout.write(`${JSON.stringify({ pipeline: config.name, ...result }, null, 2)}\n`);
      else {
        ctx.stdout.write(`validation of ${config.name} (offline: nothing sent; "pending" = would be imported)\n`);
        ctx.stdout.write(formatStageTable(result.stages, result.totals, result.durationMs));
        for (const w of result.warnings) ctx.stdout.write(`warning: ${w.message}\n`);
        if (result.skippedDir) ctx.stdout.write(`${skippedFolderLine(result.skippedDir)}\n`);
        for (const [stage, file] of Object.entries(result.rejectsFiles)) {
          const lines = await readFirstLines(file, Number(options.show) || 10);
          if (lines.length === 0) continue;
          ctx.stdout.write(`\n${stage}: problems (all in ${file})\n`);
          for (const l of lines) {
            const r = JSON.parse(l) as { file: string; line?: number; index: number; reasons: Array<{ message: string }> };
            const where = `${r.file}${r.line !== undefined ? `:${r.line}` : ` record ${r.index}`}`;
            ctx.stdout.write(`  ${where}: ${r.reasons.map((x) => x.message).join('; ')}\n`);
          }
        }
      }
      if (result.totals.rejected > 0) ctx.setExitCode(ExitCode.DATA_INVALID);
    });
}
