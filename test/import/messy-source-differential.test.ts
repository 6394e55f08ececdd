/**
 * The import on messy CSV, NDJSON or JSON against the oracle of messy-source.ts: line by line outcomes, counts, the rejects
 * and duplicates files and what the platform holds; then the nightly rerun with its state folder lost,
 * which must send nothing and change nothing. DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { startImportFixture, type ImportFixture } from './support.js';
import { diffSeeds, expectLineOutcomes, expectPlatformHolds, generateCase, platformState, writeCase } from './messy-source.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(async () => {
  await f.close();
});

describe.each(diffSeeds('2,3,4,24,29,47'))('messy input, seed %i', (seed) => {
  it('counts, rejects and the platform agree with the oracle, and a rerun from scratch changes nothing', async () => {
    const c = generateCase(seed);
    const dir = join(f.dir, `seed-${seed}`);
    const { config } = await writeCase(dir, c, `messy-${seed}`);

    const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
    expect(report.totals.balanced).toBe(true);
    await expectLineOutcomes(report, c);
    const held = await expectPlatformHolds(f.client, c);

    // The nightly rerun, its state folder lost: everything is found on the platform, nothing sent again.
    const again = await runImport({ config, stateDir: join(dir, 'state-again') }, { client: f.client });
    expect(again.totals.balanced).toBe(true);
    await expectLineOutcomes(again, c);
    expect(await platformState(f.client, c.prefix)).toEqual(held);
  }, 120_000);
});
