import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type PlatformState } from '../slack-migration/support.js';
import { LOBBY, LOBBY_FILE, ana, bo, file, fixtureWithExport, message, snowflakeAt } from './hand-made-export.js';

/**
 * A thread whose starter message was deleted: its file is in the export, and its id (the starter's, a
 * snowflake of the starter's time) names no message of the channel. Three exports of one guild migrated in
 * turn onto one platform: (1) one whose lobby file ends before the starter's time (`--before`), which
 * leaves the thread's messages orphans at the lobby's end as every earlier version did with a deleted
 * starter; (2) the whole history; (3) an `--after` export with a new message in that thread.
 */
const at = (minute: number, second = 0) => `2024-03-01T10:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}.000+01:00`;
const THREAD = snowflakeAt(at(4, 30));
const gone = { id: THREAD, type: 'GuildPublicThread', categoryId: LOBBY.id, category: 'lobby', name: 'gone', topic: null };
const m = (minute: number, content: string, author = ana) => message(snowflakeAt(at(minute), minute), minute, content, author);
const [hello, before, back, later] = [m(1, 'hello'), m(3, 'before the thread'), m(9, 'back in the channel', bo), m(10, 'later')];
const threadMessages = [m(5, 'its starter was deleted', bo), m(6, 'still here')];

let f: ImportFixture;
const reports: RunReport[] = [];
const platforms: PlatformState[] = [];

beforeAll(async () => {
  let dir: string;
  ({ f, dir } = await fixtureWithExport());
  const runs = [
    { lobby: file(LOBBY, [hello, before], { after: null, before: at(4) }), thread: file(gone, threadMessages) },
    { lobby: file(LOBBY, [hello, before, back]), thread: file(gone, threadMessages) },
    { lobby: file(LOBBY, [back, later], { after: at(8), before: null }), thread: file(gone, [m(11, 'a late answer', bo)], { after: at(8), before: null }) },
  ];
  for (const run of runs) {
    await writeFile(join(dir, LOBBY_FILE), run.lobby);
    await writeFile(join(dir, `Guild - Text Channels - gone [${THREAD}].json`), run.thread);
    const { config } = await writePipeline(f.dir, `name: discord\ndiscord:\n  export: ${dir}\n`);
    reports.push(await runImport({ config, stateDir: join(f.dir, `state-${reports.length}`), verify: {} }, { client: f.client }));
    platforms.push(await readPlatform(f.client));
  }
}, 60_000);
afterAll(() => f?.close());

const lobbyOf = (platform: PlatformState) => platform.channels.find((c) => c.slackId === LOBBY.id)!;

describe('a Discord thread whose starter message was deleted', () => {
  it('an export that does not cover the starter\'s time sends the thread\'s messages to the channel\'s end, orphans (as earlier versions did)', () => {
    expect(lobbyOf(platforms[0]!).messages.map((x) => x.body)).toEqual(['hello', 'before the thread', 'its starter was deleted', 'still here']);
    expect(reports[0]!.stages.messages).toMatchObject({ read: 4, imported: 4, orphans: 2 });
  });

  it('gets a root where the starter was, as Discord shows it, its messages in its thread; earlier orphan copies are moved there, none doubled', () => {
    const lobby = lobbyOf(platforms[1]!);
    expect(lobby.messages.map((x) => [x.type, x.body])).toEqual([
      ['TEXT', 'hello'], ['TEXT', 'before the thread'], ['SYSTEM_TEXT', 'Original message was deleted (thread: gone)'], ['TEXT', 'back in the channel'],
    ]);
    expect(lobby.threads.get(THREAD)?.replies.map((x) => [x.user, x.body])).toEqual([['bo', 'its starter was deleted'], ['ana', 'still here']]);
    // The root counts as a record of the thread's file (its header names the thread); what run 1 holds is imported again by key, a no-op.
    expect(reports[1]!.stages.messages).toMatchObject({ read: 6, imported: 6, rejected: 0, skipped: 0, replies: 2, moved: 2 });
    expect(reports[1]!.stages.messages?.orphans ?? 0).toBe(0);
    expect(reports[1]!.verification?.status).toBe('exact');
  });

  it('an --after export older than the thread adds its new messages to that thread, with no second root', () => {
    const lobby = lobbyOf(platforms[2]!);
    expect(lobby.messages.map((x) => x.body)).toEqual(['hello', 'before the thread', 'Original message was deleted (thread: gone)', 'back in the channel', 'later']);
    expect(lobby.threads.get(THREAD)?.replies.map((x) => x.body)).toEqual(['its starter was deleted', 'still here', 'a late answer']);
    expect(reports[2]!.stages.messages).toMatchObject({ read: 3, imported: 3, replies: 1 });
    expect(reports[2]!.stages.messages?.orphans ?? 0).toBe(0);
    // The platform holds the history before --after too (extra to this export), but nothing is missing or out of place.
    const verification = reports[2]!.verification;
    expect(verification !== undefined && 'stages' in verification ? verification.stages.messages?.differences : undefined).toMatchObject({ missing: 0, misplaced: 0, 'out-of-order': 0, changed: 0 });
  });
});
