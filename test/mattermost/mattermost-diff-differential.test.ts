/**
 * `migrate mattermost` on a seeded bulk export (mattermost-diff.ts) against the oracle: line by line
 * outcomes, counts, rejects, and what the platform holds (read over HTTP: users, channels with members,
 * posts in order, each thread's replies) and verification; then the nightly rerun with its state folder lost, which must
 * change nothing. DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { readPlatform } from '../slack-migration/support.js';
import { startImportFixture, writePipeline } from '../import/support.js';
import { diffSeeds, expectPlatformHoldsCase, expectRecordOutcomes } from '../slack-migration/slack-diff.js';
import { generateMattermostCase, mattermostCaseDir, writeMattermostCase } from './mattermost-diff.js';

describe.each(diffSeeds('1,2,3,4'))('Mattermost export, seed %i', (seed) => {
  it('counts, rejects, skips and the platform agree with the oracle, and a rerun from scratch changes nothing', async () => {
    const f = await startImportFixture();
    try {
      const c = generateMattermostCase(seed);
      const dir = mattermostCaseDir(f.dir, seed);
      const { file, config } = await writeMattermostCase(dir, c, `mattermost-diff-${seed}`, writePipeline);

      const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
      expect(report.totals.balanced).toBe(true);
      expect(report.verification?.status, 'verification after the run').toBe('exact');
      await expectRecordOutcomes(report, c, file, config);
      const held = await expectPlatformHoldsCase(f.client, c);

      // The nightly rerun, its state folder lost: everything is found on the platform, nothing sent again.
      const again = await runImport({ config, stateDir: join(dir, 'state-again'), verify: {} }, { client: f.client });
      expect(again.totals.balanced).toBe(true);
      expect(again.verification?.status, 'verification after the rerun').toBe('exact');
      await expectRecordOutcomes(again, c, file, config);
      expect(await readPlatform(f.client)).toEqual(held);
    } finally {
      await f.close();
    }
  }, 120_000);
});
