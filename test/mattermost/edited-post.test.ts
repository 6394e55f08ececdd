import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, writeInput, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform } from '../slack-migration/support.js';

/**
 * A post edited between two exports keeps its channel, time and author but not its text, which its key
 * hashes (as Mattermost's own import matches posts): the second export's post is the same record, counted
 * changed (insert) or patched (upsert), never a second message. Two posts of one author in one channel
 * in the same millisecond stay two, paired with the platform's by their order in the export.
 */
const at = (minute: number) => 1_700_000_000_000 + minute * 60_000;
const line = (type: string, value: unknown) => JSON.stringify({ type, [type]: value });
const user = (team: string, username: string) => ({ username, email: `${username}@example.invalid`, roles: 'system_user', teams: [{ name: team, roles: 'team_user', channels: [{ name: `${team}-ops`, roles: 'channel_user' }] }] });

type Post = [author: string, minute: number, text: string, edited?: boolean];

/** `texts`: the channel's posts; `replies`: those of its post of minute 3. */
function exportOf(team: string, texts: Post[], replies: Post[]): string {
  const post = ([author, minute, message, edited]: Post) => ({ user: `${team}-${author}`, message, create_at: at(minute), edit_at: edited ? at(minute + 30) : 0, type: '', props: {} });
  return [
    JSON.stringify({ type: 'version', version: 1 }),
    line('team', { name: team, display_name: team, type: 'O' }),
    line('channel', { team, name: `${team}-ops`, display_name: 'Ops', type: 'O' }),
    line('user', user(team, `${team}-ana`)),
    line('user', user(team, `${team}-bot`)),
    ...texts.map((p) => line('post', { team, channel: `${team}-ops`, ...post(p), ...(p[1] === 3 ? { replies: replies.map(post) } : {}) })),
  ].join('\n') + '\n';
}

const FIRST: Post[] = [['ana', 1, 'hello'], ['bot', 2, 'one'], ['bot', 2, 'two'], ['ana', 3, 'bye']];
/** The replies to "bye": two of one author in one millisecond. */
const FIRST_REPLIES: Post[] = [['bot', 4, 'ack'], ['bot', 4, 'ok'], ['ana', 5, 'thanks']];
const EDITED_REPLIES: Post[] = [['bot', 4, 'ack'], ['bot', 4, 'ok, edited', true], ['ana', 5, 'thanks!', true]];

let f: ImportFixture;
beforeAll(async () => {
  f = await startImportFixture();
}, 60_000);
afterAll(() => f?.close());

/** The first export imported, then the second into the same state folder. */
async function migrateTwice(team: string, second: Post[], options = ''): Promise<{ first: RunReport; again: RunReport; rerun: () => Promise<RunReport> }> {
  const file = await writeInput(f.dir, `${team}.jsonl`, exportOf(team, FIRST, FIRST_REPLIES));
  const { config } = await writePipeline(f.dir, `name: ${team}\nmattermost:\n  export: ${file}\n${options}`);
  const stateDir = join(f.dir, `state-${team}`);
  const rerun = () => runImport({ config, stateDir, verify: {} }, { client: f.client });
  const first = await rerun();
  await writeInput(f.dir, `${team}.jsonl`, exportOf(team, second, EDITED_REPLIES));
  return { first, again: await rerun(), rerun };
}

/** The channel's messages, then the replies of its thread. */
async function bodies(team: string): Promise<string[][]> {
  const channel = (await readPlatform(f.client)).channels.find((c) => c.slackId === `${team}/${team}-ops`)!;
  return [channel.messages.map((m) => m.body), ...[...channel.threads.values()].map((t) => t.replies.map((r) => r.body))];
}
const changedKeys = async (runDir: string) =>
  (await readFile(join(runDir, 'changed', 'messages.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { sourceKey: string; applied: boolean }).map((l) => [/\/(\d+\/[^/]+)\/[0-9a-f]{8}$/.exec(l.sourceKey)?.[1], l.applied]);

describe('a Mattermost post or reply edited between two exports', () => {
  it('is the same record, changed and not applied (insert); a new post of the same millisecond is sent', async () => {
    const { first, again } = await migrateTwice('ins', [['ana', 1, 'hello, edited', true], ['bot', 2, 'one'], ['bot', 2, 'two, edited', true], ['bot', 2, 'three'], ['ana', 3, 'bye']]);
    expect(first.stages.messages).toMatchObject({ read: 7, imported: 7 });
    expect(again.stages.messages).toMatchObject({ read: 8, imported: 4, skipped: 4, changed: 4, rejected: 0 });
    expect(again.totals.balanced).toBe(true);
    expect(await changedKeys(again.runDir)).toEqual([[`${at(1)}/ins-ana`, false], [`${at(2)}/ins-bot`, false], [`${at(4)}/ins-bot`, false], [`${at(5)}/ins-ana`, false]]);
    expect(await bodies('ins')).toEqual([['hello', 'one', 'two', 'bye', 'three'], ['ack', 'ok', 'thanks']]);
    // Verification names the four as changed at the source, nothing extra; the new post landed after "bye".
    expect(again.verification).toMatchObject({ status: 'differences', counts: { missing: 0, extra: 0, misplaced: 0, 'out-of-order': 1, changed: 4 } });
  });

  it('is patched (upsert); two posts of one author in one millisecond, both edited, keep their order', async () => {
    const { again, rerun } = await migrateTwice('ups', [['ana', 1, 'hello, edited', true], ['bot', 2, 'one, edited', true], ['bot', 2, 'two, edited', true], ['ana', 3, 'bye']], 'options:\n  mode: upsert\n');
    expect(again.stages.messages).toMatchObject({ read: 7, imported: 7, updated: 5, skipped: 0, rejected: 0 });
    expect(await bodies('ups')).toEqual([['hello, edited', 'one, edited', 'two, edited', 'bye'], ['ack', 'ok, edited', 'thanks!']]);
    expect(again.verification?.status).toBe('exact');
    // The patched copies carry the new texts' ids: the same export again changes nothing.
    expect((await rerun()).stages.messages).toMatchObject({ read: 7, imported: 7, updated: 0, skipped: 0 });
    expect(await bodies('ups')).toEqual([['hello, edited', 'one, edited', 'two, edited', 'bye'], ['ack', 'ok, edited', 'thanks!']]);
  });
});
