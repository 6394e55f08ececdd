import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStageProcessor, resolvePipelineConfig } from 'chatport';
// The types README's library section names as the options and results of its functions, by name, as a
// caller's code writes them (`npm run typecheck` checks this file; until 2026-11-28 none of these was exported).
import type {
  Condition, Destination, ExportManifest, FieldRef, InputSourceOptions, Int64, NestedMapping, Now, Reason, RecordPosition,
  ResolvePipelineOptions, ResolvePipelineResult, RetryPolicy, Row, SandboxCapacity, Sleep, SourceInput, StageProcessor,
  StageProcessorDeps, StageProcessorSpec, TableSchema, UserNameLookup, ChunkerOptions, StageStatus, ReportedError,
} from 'chatport';
import { ROOT } from './readme.js';

describe('the package entry points', () => {
  it('give package.json, which tools read by `chatport/package.json`', () => {
    const require = createRequire(join(ROOT, 'any.js'));
    expect(require.resolve('chatport/package.json')).toBe(join(ROOT, 'package.json'));
    expect(require.resolve('chatport')).toBe(join(ROOT, 'dist', 'index.js'));
  });

  it('name the types of what the documented functions take and give', () => {
    const options: ResolvePipelineOptions = { env: {} };
    const result: ResolvePipelineResult = resolvePipelineConfig('name: x\nstages: {}\n', options);
    const when: Condition = { field: 'subtype' as FieldRef, empty: true };
    const mapping: NestedMapping = { type: { const: 'TEXT' }, user: 'author', body: { field: 'text', when } };
    const lookup: UserNameLookup = () => undefined;
    const deps: StageProcessorDeps = { channelIds: () => 1, userNames: lookup };
    const spec: StageProcessorSpec = { pipelineId: 'p', stage: 'messages', key: 'id', channel: 'c', mapping };
    const process: StageProcessor = createStageProcessor(spec, deps);
    const position: RecordPosition = { file: 'm.csv', line: 2, index: 0 };
    const input: SourceInput = { record: { id: 'm1', c: 'general', author: 'ann', text: 'hi' }, position };
    const out = process(input);
    const reasons: Reason[] = out.kind === 'rejected' ? out.reasons : [];
    expect({ ok: result.ok, kind: out.kind, reasons }).toEqual({ ok: expect.any(Boolean), kind: 'accepted', reasons: [] });
    const unused: Array<Destination | ExportManifest | InputSourceOptions | Int64 | Now | Sleep | RetryPolicy | Row | SandboxCapacity | TableSchema | ChunkerOptions | StageStatus | ReportedError> = [];
    expect(unused).toEqual([]);
  });
});
