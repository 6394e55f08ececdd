import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { ExitCode, exitCodeFor } from '../../src/shared/exit-codes.js';
import { all, startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { writeExportFolder } from './support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/**
 * An Enterprise Grid export keeps each workspace's conversation lists and day files under `teams/<name>/`,
 * which chatport does not map. Importing org_users.json alone and calling the run exact would lose every
 * message without a word: the export is refused before anything is imported.
 */
describe('a Slack Enterprise Grid export with workspaces under teams/<name>/', () => {
  it('is refused (exit 65, naming the workspace folder) before any user is imported', async () => {
    const root = await writeExportFolder('chatport-slack-grid-', {
      'org_users.json': [{ id: 'U1', team_id: 'TG', name: 'grid-ana' }],
      'teams/acme/channels.json': [{ id: 'C1', name: 'general', members: ['U1'] }],
      'teams/acme/general/2020-09-14.json': [{ type: 'message', ts: '1600100000.000100', user: 'U1', text: 'hello grid' }],
    });
    await mkdir(join(f.dir, 'grid'));
    const { config } = await writePipeline(join(f.dir, 'grid'), `name: slack-grid\nslack:\n  export: ${root}\n`);
    const error = await runImport({ config, stateDir: join(f.dir, 'grid', 'state'), verify: {} }, { client: f.client }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'SLACK_GRID_UNSUPPORTED', message: expect.stringContaining('teams/acme') });
    expect(exitCodeFor(error)).toBe(ExitCode.DATA_INVALID);
    expect((await all(f.client.users.list())).map((u) => u.name)).not.toContain('grid-ana');
  });
});
