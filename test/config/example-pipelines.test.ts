import { createReadStream, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolvePipelineConfig, stageProcessorSpec } from '../../src/config/index.js';
import { parseRecords } from '../../src/formats/index.js';
import { createStageProcessor } from '../../src/transform/index.js';
import type { Processed } from '../../src/transform/index.js';

const dir = fileURLToPath(new URL('../../pipelines/', import.meta.url));
const env = { CHATPORT_CLIENT_ID: 'id', CHATPORT_CLIENT_SECRET: 'secret' };

// Import pipelines; export pipeline files (`kind: export`) have their own schema and test (test/export).
const importPipelines = readdirSync(dir).filter((f) => f.endsWith('.yaml') && !/^kind:\s*export\b/m.test(readFileSync(join(dir, f), 'utf8')));

describe('pipelines/*.yaml', () => {
  it('the import pipelines are found', () => expect(importPipelines).toContain('csv-example.yaml'));
  for (const name of importPipelines)
    it(`${name} resolves without errors or warnings`, () => {
      const result = resolvePipelineConfig(readFileSync(join(dir, name), 'utf8'), { env, path: join(dir, name) });
      expect(result.ok ? result.warnings : result.errors).toEqual([]);
    });

  it('an export pipeline file given where an import pipeline goes (validate, import) is named as such, once, with the command it is for', () => {
    const path = join(dir, 'nightly-analytics.yaml');
    const result = resolvePipelineConfig(readFileSync(path, 'utf8'), { env, path });
    expect(result.ok ? [] : result.errors).toEqual([
      {
        path: 'kind',
        line: 9,
        column: 7,
        message: 'kind: export: this is an export pipeline file; run it with `chatport export --pipeline <file>` (docs/export.md). import, validate, verify and status take an import pipeline file: stages, or a slack, discord or mattermost block',
        expected: 'an import pipeline file',
      },
    ]);
  });

  it('csv-example: the fixtures give the intended accepted, rejected and skipped records at their lines', async () => {
    const path = join(dir, 'csv-example.yaml');
    const result = resolvePipelineConfig(readFileSync(path, 'utf8'), { env, path });
    if (!result.ok) throw new Error('does not resolve');
    const channelIds = new Map<string, number>();
    const outcome: Record<string, string[]> = {};
    for (const stage of result.config.stages) {
      const process = createStageProcessor(stageProcessorSpec(result.config, stage), { channelIds });
      const file = stage.source.paths[0]!;
      const seen: string[] = (outcome[stage.stage] = []);
      for await (const input of parseRecords(createReadStream(file), { file: basename(file), csv: stage.source.csv, ...(stage.source.format ? { format: stage.source.format } : {}) })) {
        const p: Processed = process(input);
        seen.push(`${p.position.line}:${p.kind}${p.kind === 'rejected' ? `:${p.reasons.map((r) => r.field || '-').join(',')}` : ''}`);
        // Stand-in for the pipeline's resolution after the channels stage: ids in order of acceptance.
        if (stage.stage === 'channels' && p.kind === 'accepted') channelIds.set(p.sourceKey, channelIds.size + 1);
      }
    }
    expect(outcome).toEqual({
      users: ['2:accepted', '3:accepted', '4:accepted', '5:rejected:isGuest', '6:rejected:name', '7:skipped'],
      channels: ['2:accepted', '3:accepted', '4:accepted', '5:rejected:members', '6:rejected:type'],
      members: ['2:accepted', '3:accepted', '4:accepted', '5:accepted', '6:accepted', '7:rejected:idempotencyKey,username', '8:rejected:channelId'],
      messages: ['2:accepted', '3:accepted', '5:accepted', '6:rejected:body', '7:rejected:properties.source.sentAt', '8:rejected:-', '9:accepted', '10:accepted'],
    });
  });
});
