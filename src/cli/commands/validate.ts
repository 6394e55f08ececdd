import type { Command } from 'commander';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runValidate } from '../../pipeline/import/run-validate.js';
import { formatStageTable, skippedFolderLine } from '../../pipeline/report.js';
import { ExitCode } from '../../shared/exit-codes.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import type { CliContext } from '../context.js';
import { loadPipelineFile } from '../pipeline-file.js';

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
      // The CLI keeps its rejects (it prints where they are); the library removes a folder it made itself.
      const outDir = options.out ?? (await mkdtemp(join(tmpdir(), 'chatport-validate-')));
      const result = await runValidate(config, { outDir, keepRejects: Number(options.show) || 10, signal: ctx.signal });
      if (options.json) ctx.stdout.write(`${stringifyJson({ pipeline: config.name, ...result }, 2)}\n`);
      else {
        ctx.stdout.write(`validation of ${config.name} (offline: nothing sent; "pending" = would be imported)\n`);
        ctx.stdout.write(formatStageTable(result.stages, result.totals, result.durationMs));
        for (const w of result.warnings) ctx.stdout.write(`warning: ${w.message}\n`);
        if (result.skippedDir) ctx.stdout.write(`${skippedFolderLine(result.skippedDir)}\n`);
        for (const [stage, rejects] of Object.entries(result.rejects)) {
          ctx.stdout.write(`\n${stage}: problems (all in ${result.rejectsFiles[stage as keyof typeof result.rejectsFiles]})\n`);
          for (const r of rejects) {
            const where = `${r.file}${r.line !== undefined ? `:${r.line}` : ` record ${r.index}`}`;
            ctx.stdout.write(`  ${where}: ${r.reasons.map((x) => x.message).join('; ')}\n`);
          }
        }
      }
      if (result.totals.rejected > 0) ctx.setExitCode(ExitCode.DATA_INVALID);
    });
}
