import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStageRecords } from '../../src/pipeline/import/read-stage.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/**
 * A JSON file in a conversation folder that is no day file (`2020-09-14 2.json`, Finder's copy when two
 * exports are merged by hand) is not read: it is one skipped record saying so, not a file nobody hears of.
 */
describe('a JSON file in a Slack conversation folder that is not named YYYY-MM-DD.json', () => {
  it('is counted skipped with its reason; the day files are imported', async () => {
    const root = await writeExportFolder('chatport-slack-stray-', {
      'users.json': [{ id: 'U1', team_id: 'TST', name: 'stray-ana' }],
      'channels.json': [{ id: 'C1', name: 'stray-general', members: ['U1'] }],
      'stray-general/2020-09-14.json': [{ type: 'message', ts: '1600100000.000100', user: 'U1', text: 'in a day file' }],
      'stray-general/2020-09-14 2.json': [{ type: 'message', ts: '1600100100.000100', user: 'U1', text: 'in a copy' }],
      'stray-general/.DS_Store': 'not json',
    });
    const dir = join(f.dir, 'stray');
    await mkdir(dir);
    const { config } = await writePipeline(dir, `name: slack-stray\nslack:\n  export: ${root}\n`);
    const report = await runImport({ config, stateDir: join(dir, 'state'), verify: {} }, { client: f.client });
    expect(report.stages.messages).toMatchObject({ read: 2, imported: 1, skipped: 1, rejected: 0 });
    expect(report.totals.balanced).toBe(true);
    expect(report.verification).toMatchObject({ status: 'exact' });
    const records = await all(readStageRecords(config, config.stages.find((s) => s.stage === 'messages')!, { channelIds: new Map() }));
    expect(records.filter((r) => r.kind === 'skipped')).toEqual([expect.objectContaining({ because: expect.stringContaining('stray-general/2020-09-14 2.json is not a day file (YYYY-MM-DD.json): not read') })]);
  });
});
