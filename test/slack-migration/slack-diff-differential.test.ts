/**
 * `migrate slack` on a seeded export (slack-diff.ts) against the oracle: record by record outcomes, counts,
 * rejects, and what the platform holds (read over HTTP: users, channels with members, messages in ts order,
 * each thread's replies); then the nightly rerun with its state folder lost, which must change nothing.
 * DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { readPlatform } from './support.js';
import { startImportFixture, writePipeline } from '../import/support.js';
import { caseDir, diffSeeds, expectPlatformHoldsCase, expectRecordOutcomes, generateSlackCase, writeSlackCase } from './slack-diff.js';

describe.each(diffSeeds('1,2,3,5,8'))('Slack export, seed %i', (seed) => {
  it('counts, rejects, skips and the platform agree with the oracle, and a rerun from scratch changes nothing', async () => {
    const f = await startImportFixture();
    try {
      const c = generateSlackCase(seed);
      const dir = caseDir(f.dir, seed);
      const { zip, config } = await writeSlackCase(dir, c, `slack-diff-${seed}`, writePipeline);

      const report = await runImport({ config, stateDir: join(dir, 'state') }, { client: f.client });
      expect(report.totals.balanced).toBe(true);
      await expectRecordOutcomes(report, c, zip, config);
      const held = await expectPlatformHoldsCase(f.client, c);

      // The nightly rerun, its state folder lost: everything is found on the platform, nothing sent again.
      const again = await runImport({ config, stateDir: join(dir, 'state-again') }, { client: f.client });
      expect(again.totals.balanced).toBe(true);
      await expectRecordOutcomes(again, c, zip, config);
      expect(await readPlatform(f.client)).toEqual(held);
    } finally {
      await f.close();
    }
  }, 120_000);
});
