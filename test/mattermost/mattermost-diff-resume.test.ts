/**
 * `chatport migrate mattermost` on a seeded bulk export (mattermost-diff.ts), SIGKILLed at seeded points of
 * its journal (in the posts' uploads, then in the replies pass) and resumed each time: the run that
 * finishes must say, line by line, what the oracle says, and the platform must hold exactly the oracle's
 * channels, posts and threads (nothing lost, nothing twice). DIFF_SEEDS=1,2,... runs other seeds.
 */
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { startImportFixture, writePipeline } from '../import/support.js';
import { diffSeeds, expectKilledAndResumed, REPLY_DELAY } from '../slack-migration/slack-diff.js';
import { generateMattermostCase, mattermostCaseDir, writeMattermostCase } from './mattermost-diff.js';

describe.each(diffSeeds('2'))('Mattermost export killed and resumed, seed %i', (seed) => {
  it('ends line by line as the oracle says, with exactly the oracle on the platform', async () => {
    // A platform of its own (the oracle says what all of it holds), with slow jobs so that a kill lands while jobs are in flight.
    const f = await startImportFixture({ jobs: { minDurationMs: 40 }, faults: [REPLY_DELAY] });
    try {
      const c = generateMattermostCase(seed);
      const dir = mattermostCaseDir(f.dir, seed);
      const { file, config } = await writeMattermostCase(dir, c, 'mattermost', writePipeline);
      // A sort budget of a few posts: every read spills the posts to run files and merges them.
      const env = { ...f.env, CHATPORT_CHUNK_RECORDS: '7', MATTERMOST_SYSTEM_MESSAGES: c.systemMessages, CHATPORT_MATTERMOST_SORT_BYTES: '4000' };
      await expectKilledAndResumed({ source: 'mattermost', exportPath: file, state: join(dir, 'state'), env, seed, c, config, client: f.client });
    } finally {
      await f.close();
    }
  }, 180_000);
});
