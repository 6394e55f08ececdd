import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EXPORT_PIPELINE_SCHEMA_ID, exportPipelineJsonSchema } from '../../src/pipeline/export/json-schema.js';
import { runCli } from '../import/support.js';

type Schema = { $id?: string; properties?: Record<string, { const?: string }>; required?: string[]; additionalProperties?: boolean };

describe('the JSON Schema of export pipeline files', () => {
  const schema = exportPipelineJsonSchema() as Schema;

  it('describes kind: export files, and every field of pipelines/nightly-analytics.yaml', () => {
    expect(schema.$id).toBe(EXPORT_PIPELINE_SCHEMA_ID);
    expect(schema.properties!.kind!.const).toBe('export');
    expect(schema.required).toEqual(expect.arrayContaining(['kind', 'to']));
    expect(schema.additionalProperties).toBe(false);
    const file = parseYaml(readFileSync(new URL('../../pipelines/nightly-analytics.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(schema.properties!)).toEqual(expect.arrayContaining(Object.keys(file)));
  });

  it('is what `chatport schema --export` prints and docs/export-pipeline.schema.json holds (the example references it)', async () => {
    const printed = await runCli(['schema', '--export']);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(schema);
    const published = JSON.parse(readFileSync(new URL('../../docs/export-pipeline.schema.json', import.meta.url), 'utf8')) as unknown;
    expect(published).toEqual(schema);
    expect(readFileSync(new URL('../../pipelines/nightly-analytics.yaml', import.meta.url), 'utf8')).toMatch(/^# yaml-language-server: \$schema=\.\.\/docs\/export-pipeline\.schema\.json\n/);
  });
});
