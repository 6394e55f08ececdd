import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PIPELINE_SCHEMA_ID, pipelineJsonSchema } from '../../src/config/index.js';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; $defs?: Record<string, Schema>; required?: string[] };

describe('pipelineJsonSchema', () => {
  const schema = pipelineJsonSchema() as Schema;

  it('is a draft 2020-12 schema with an id, describing the file as written', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(PIPELINE_SCHEMA_ID);
    expect(schema.required).toEqual(['name']); // stages, or a slack block instead
    expect(Object.keys(schema.properties!)).toEqual(expect.arrayContaining(['name', 'api', 'state', 'options', 'stages', 'slack']));
    expect(schema.additionalProperties).toBe(false);
  });

  it('carries descriptions and defaults for editors, and the recursive mapping as a $ref', () => {
    const text = JSON.stringify(schema);
    expect(text).toContain('Most items per import file. Default 1000.');
    expect(text).toContain('"default":","');
    expect(text).toContain('"$ref":"#/$defs/');
    expect(Object.keys(schema.$defs ?? {}).length).toBeGreaterThan(0);
  });

  it('is the same as docs/pipeline.schema.json, which the example pipelines reference', () => {
    const published = JSON.parse(readFileSync(new URL('../../docs/pipeline.schema.json', import.meta.url), 'utf8')) as unknown;
    expect(published).toEqual(schema);
  });
});
