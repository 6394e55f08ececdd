/**
 * The import on messy input (test/import/messy-source.ts) split over three shards that run at once: over
 * all shards, every record must come out as the oracle (one run's answer) says, line by line, and the
 * platform must hold exactly what it says. DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { shardOfKey } from '../../src/pipeline/shards/shard-spec.js';
import { startImportFixture, type ImportFixture } from '../import/support.js';
import { diffSeeds, expectLineOutcomes, expectPlatformHolds, generateCase, writeCase } from '../import/messy-source.js';

const N = 3;

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

describe.each(diffSeeds('3,4,8'))('messy input over three shards, seed %i', (seed) => {
  it('counts each record once over the shards, as the oracle says, and the platform holds exactly it', async () => {
    const c = generateCase(seed);
    const owners = new Set(c.channels.map((l) => shardOfKey(l.cells[0]!, N)));
    expect(owners.size, 'the channels spread over more than one shard').toBeGreaterThan(1);
    const dir = join(f.dir, `sharded-${seed}`);
    const { config } = await writeCase(dir, c, `messy-sharded-${seed}`);
    const reports = await Promise.all(Array.from({ length: N }, (_, index) => runImport({ config: { ...config, shard: { index, count: N } }, stateDir: join(dir, 'state') }, { client: f.client })));
    for (const report of reports) expect(report.totals.balanced).toBe(true);
    await expectLineOutcomes(reports, c);
    await expectPlatformHolds(f.client, c);
  }, 120_000);
});
