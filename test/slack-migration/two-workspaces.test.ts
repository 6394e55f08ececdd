import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
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

/**
 * A small unpacked Slack export of workspace `team`: two users of its own, #general, one day of messages;
 * with `shared`, a third user of that name (in every workspace), who writes one more message.
 */
async function workspace(team: string, shared?: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), `chatport-slack-${team}-`));
  const lower = team.toLowerCase();
  const users = [{ id: 'U1', team_id: team, name: `ana-${lower}` }, { id: 'U2', team_id: team, name: `bo-${lower}` }, ...(shared ? [{ id: 'U3', team_id: team, name: shared }] : [])];
  await writeFile(join(root, 'users.json'), JSON.stringify(users));
  await writeFile(join(root, 'channels.json'), JSON.stringify([{ id: 'C1', name: `general-${lower}`, members: users.map((u) => u.id) }]));
  await mkdir(join(root, `general-${lower}`));
  const messages = [1, 2, 3].map((i) => ({ type: 'message', ts: `160000000${i}.000100`, user: i % 2 ? 'U1' : 'U2', text: `${team} message ${i}` }));
  if (shared) messages.push({ type: 'message', ts: '1600000004.000100', user: 'U3', text: `${team} message by ${shared}` });
  await writeFile(join(root, `general-${lower}`, '2020-09-13.json'), JSON.stringify(messages));
  return root;
}

async function migrate(team: string, exportPath: string, state: string, block = '') {
  await mkdir(join(f.dir, team), { recursive: true });
  const { config } = await writePipeline(join(f.dir, team), `name: slack\nslack:\n  export: ${exportPath}\n${block}`);
  return runImport({ config, stateDir: state, verify: {} }, { client: f.client });
}

describe('two Slack workspaces migrated one after the other by the same pipeline', () => {
  it("each run verifies exact: the other workspace's users and channels are not taken for extras", async () => {
    const state = join(f.dir, 'state');
    for (const team of ['T1', 'T2']) {
      const report = await migrate(team, await workspace(team), state);
      expect(report.status, team).toBe('succeeded');
      expect(report.stages.messages, team).toMatchObject({ read: 3, imported: 3 });
      expect(report.verification, team).toMatchObject({ status: 'exact', counts: { extra: 0, missing: 0 } });
    }
  });

  it("a user of the same name in both: the second's is rejected with the reason, and so are its records, never given to the first's; onExistingUsers: match takes them as one", async () => {
    const state = join(f.dir, 'state-shared');
    expect((await migrate('S1', await workspace('S1', 'cy'), state)).verification).toMatchObject({ status: 'exact' });
    const second = await workspace('S2', 'cy');
    const report = await migrate('S2', second, state);
    expect(report.status).toBe('completed-with-rejects');
    expect(report.stages.users).toMatchObject({ read: 3, imported: 2, rejected: 1, refused: 0 });
    expect(report.stages.messages).toMatchObject({ read: 4, imported: 3, rejected: 1, refused: 0 });
    expect(report.verification).toMatchObject({ status: 'exact' });
    const rejects = (await readFile(report.rejectsFile!, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { stage: string; reasons: Array<{ field: string; message: string }> });
    expect(rejects.find((r) => r.stage === 'users')!.reasons[0]!.message).toContain("username 'cy' is already taken on the platform by another record of pipeline slack (source key S1/U3)");
    expect(rejects.find((r) => r.stage === 'messages')!.reasons[0]).toMatchObject({ field: 'user', message: expect.stringContaining("is pipeline slack's user of source key S1/U3") });
    // cy's membership of #general-s2 too.
    expect(rejects.find((r) => r.stage === 'members')!.reasons[0]).toMatchObject({ field: 'username', message: expect.stringContaining("is pipeline slack's user of source key S1/U3") });

    const merged = await migrate('S2', second, join(f.dir, 'state-merged'), '  onExistingUsers: match\n');
    expect(merged.stages.users).toMatchObject({ read: 3, skipped: 1, matched: 1, rejected: 0 });
    expect(merged.stages.messages).toMatchObject({ read: 4, imported: 4, rejected: 0 });
    expect(merged.verification, JSON.stringify(merged.verification)).toMatchObject({ status: 'exact' });
  });
});
