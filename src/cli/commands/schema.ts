import type { Command } from 'commander';
import { pipelineJsonSchema } from '../../config/index.js';
import { exportPipelineJsonSchema } from '../../pipeline/export/json-schema.js';
import type { CliContext } from '../context.js';

/**
 * `chatport schema`: the JSON Schema of import pipeline files, or with `--export` of export pipeline files
 * (`kind: export`), generated from the zod schemas that read them, for editors.
 */
export function registerSchema(program: Command, ctx: CliContext): void {
  program
    .command('schema')
    .description('print the JSON Schema of import pipeline files, or of export pipeline files with --export (for editor completion and checks)')
    .option('--export', 'the schema of export pipeline files (kind: export), as `chatport export --pipeline` reads them')
    .action((flags: { export?: boolean }) => {
      const schema = flags.export ? exportPipelineJsonSchema() : pipelineJsonSchema();
      ctx.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
    });
}
