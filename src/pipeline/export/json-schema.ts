import { z } from 'zod';
import { ExportPipelineFile } from './pipeline-file.js';

/** Where the export pipeline file schema is published (docs/export-pipeline.schema.json). */
export const EXPORT_PIPELINE_SCHEMA_ID = 'https://chatport.dev/schemas/export-pipeline-v1.json';

/**
 * The JSON Schema (draft 2020-12) of export pipeline files (`kind: export`), generated from the zod schema
 * that reads them, as the file is written (`io: "input"`: fields with defaults are optional).
 */
export function exportPipelineJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ExportPipelineFile, { io: 'input', target: 'draft-2020-12', reused: 'ref', unrepresentable: 'any' }) as Record<string, unknown>;
  return { $schema: schema.$schema, $id: EXPORT_PIPELINE_SCHEMA_ID, title: 'chatport export pipeline', ...schema };
}
