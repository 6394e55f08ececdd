import type { Command } from 'commander';
import { pipelineJsonSchema } from '../../config/index.js';
import type { CliContext } from '../context.js';

/** `chatport schema`: the JSON Schema of pipeline files, generated from the zod schema, for editors. */
export function registerSchema(program: Command, ctx: CliContext): void {
  program
    .command('schema')
    .description('print the JSON Schema of pipeline files (for editor completion and checks)')
    .action(() => {
      ctx.stdout.write(`${JSON.stringify(pipelineJsonSchema(), null, 2)}\n`);
    });
}
