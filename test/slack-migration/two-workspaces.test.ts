import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
});
afterAll(() => f.close());

/** A small unpacked Slack export of workspace `team`: two users, #general, one day of messages. */
async function workspace(team: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), `chatport-slack-${team}-`));
  const lower = team.toLowerCase();
  await writeFile(join(root, 'users.json'), JSON.stringify([{ id: 'U1', team_id: team, name: `ana-${lower}` }, { id: 'U2', team_id: team, name: `bo-${lower}` }]));
  await writeFile(join(root, 'channels.json'), JSON.stringify([{ id: 'C1', name: `general-${lower}`, members: ['U1', 'U2'] }]));
  await mkdir(join(root, `general-${lower}`));
  const messages = [1, 2, 3].map((i) => ({ type: 'message', ts: `160000000${i}.000100`, user: i % 2 ? 'U1' : 'U2', text: `${team} message ${i}` }));
  await writeFile(join(root, `general-${lower}`, '2020-09-13.json'), JSON.stringify(messages));
  return root;
}

describe('two Slack workspaces migrated one after the other by the same pipeline', () => {
  it("each run verifies exact: the other workspace's users and channels are not taken for extras", async () => {
    const state = join(f.dir, 'state');
    for (const team of ['T1', 'T2']) {
      await mkdir(join(f.dir, team));
      const { config } = await writePipeline(join(f.dir, team), `name: slack\nslack:\n  export: ${await workspace(team)}\n`);
      const report = await runImport({ config, stateDir: state, verify: {} }, { client: f.client });
      expect(report.status, team).toBe('succeeded');
      expect(report.stages.messages, team).toMatchObject({ read: 3, imported: 3 });
      expect(report.verification, team).toMatchObject({ status: 'exact', counts: { extra: 0, missing: 0 } });
    }
  });
});
