import { z } from 'zod';
import { pipelineFileSchema } from './schema.js';

/** Where the schema is published; editors match it through `$schema` or a yaml-language-server comment. */
export const PIPELINE_SCHEMA_ID = 'https://chatport.dev/schemas/pipeline-v1.json';

/**
 * The JSON Schema (draft 2020-12) of pipeline files, generated from the zod schema so the two never drift.
 * Describes the file as written (`io: "input"`): fields with defaults are optional. `${ENV}` references make
 * any value text before interpolation, so editors may flag `chunkRecords: ${N}`; the file is still valid.
 */
export function pipelineJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(pipelineFileSchema, { io: 'input', target: 'draft-2020-12', reused: 'ref', unrepresentable: 'any' }) as Record<string, unknown>;
  return { $schema: schema.$schema, $id: PIPELINE_SCHEMA_ID, title: 'chatport pipeline', ...schema };
}
