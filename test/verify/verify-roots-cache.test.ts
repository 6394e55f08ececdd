import { cp, mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { findRunsToVerify } from '../../src/pipeline/shards/shard-runs.js';
import { runVerify } from '../../src/pipeline/verify/index.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';

/**
 * Verification keeps the roots it found in `replies/roots.json` of the folder it writes to. That file must
 * never answer for a root it lacks: here an earlier export (fewer days) is migrated by three shards and
 * verified, then the export re-made with more days is migrated by the same shards. Verifying the whole
 * pipeline (`verify --shards 3`, whose folder keeps the first verify's file) and verifying it from one
 * shard's state folder (whose file holds that shard's roots only) must both find the exact platform exact.
 */
const N = 3;
let f: ImportFixture;
let state: string;
let early: PipelineConfig;
let full: PipelineConfig;

const pipeline = (exportPath: string) => `name: slack\nslack:\n  export: ${exportPath}\noptions: { chunkRecords: 300, concurrency: 2 }\n`;
const FAST_EXPORT = { exportWait: { pollIntervalMs: 20, timeoutMs: 120_000 } };

/** A copy of the export without its day files after the middle day: the same workspace exported earlier. */
async function earlierExport(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true });
  const dayFiles: Array<{ path: string; day: string }> = [];
  for (const entry of await readdir(to, { withFileTypes: true, recursive: true }))
    if (entry.isFile() && /^\d{4}-\d\d-\d\d\.json$/.test(entry.name)) dayFiles.push({ path: join(entry.parentPath, entry.name), day: entry.name });
  const days = [...new Set(dayFiles.map((d) => d.day))].sort();
  const last = days[Math.floor(days.length / 2)]!;
  await Promise.all(dayFiles.filter((d) => d.day > last).map((d) => rm(d.path)));
}

async function migrateShards(config: PipelineConfig): Promise<void> {
  for (let index = 0; index < N; index++) {
    const report = await runImport({ config: { ...config, shard: { index, count: N } }, stateDir: state }, { client: f.client });
    expect(report.status).toBe('succeeded');
  }
}

async function verifyAs(config: PipelineConfig, stateDir: string, shards: number | undefined) {
  const run = (await findRunsToVerify(stateDir, shards))!;
  return runVerify({ config, sample: 0, rejectsFiles: run.rejectsFiles, outDir: run.runDir, ...FAST_EXPORT }, { client: f.client });
}

beforeAll(async () => {
  f = await startImportFixture();
  state = join(f.dir, 'state');
  const fullPath = join(f.dir, 'full');
  const earlyPath = join(f.dir, 'early');
  await generateSlackExport({ out: fullPath, seed: 7, messages: 900 });
  await earlierExport(fullPath, earlyPath);
  await Promise.all(['p-early', 'p-full'].map((d) => mkdir(join(f.dir, d))));
  early = (await writePipeline(join(f.dir, 'p-early'), pipeline(earlyPath))).config;
  full = (await writePipeline(join(f.dir, 'p-full'), pipeline(fullPath))).config;
  await migrateShards(early);
  const first = await verifyAs(early, state, N);
  expect(first.differences).toEqual([]);
  await migrateShards(full);
}, 240_000);
afterAll(() => f?.close());

describe('verify after the shards imported an export re-made with more days', () => {
  it('verify --shards 3 finds the platform exact, though its folder kept the earlier verify\'s roots', async () => {
    const result = await verifyAs(full, state, N);
    expect(result.differences).toEqual([]);
    expect(result.summary.status).toBe('exact');
  }, 120_000);

  it('verifying from one shard\'s state folder finds the whole pipeline exact, though its run knew only its own roots', async () => {
    for (let index = 0; index < N; index++) {
      const result = await verifyAs(full, join(state, `shard-${index}-of-${N}`), undefined);
      expect({ index, differences: result.differences }).toEqual({ index, differences: [] });
    }
  }, 120_000);
});
