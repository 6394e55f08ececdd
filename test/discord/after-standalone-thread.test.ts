import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type PlatformState } from '../slack-migration/support.js';
import { GUILD, LOBBY, LOBBY_FILE, ana, bo, file, fixtureWithExport, message, snowflakeAt } from './hand-made-export.js';

/**
 * A thread started without a message (its channel holds a `ThreadCreated` note instead of a starter),
 * migrated whole, then an `--after` export (a nightly run) with a new message in that thread: the note is
 * older than the range, so the export lacks it, and the thread's id names no message.
 */
const at = (minute: number) => `2024-03-01T10:${String(minute).padStart(2, '0')}:00.000+01:00`;
const m = (minute: number, content: string, author = ana, extra = {}) => message(snowflakeAt(at(minute), minute), minute, content, author, extra);
const THREAD = snowflakeAt(at(2));
const plans = { id: THREAD, type: 'GuildPublicThread', categoryId: LOBBY.id, category: 'lobby', name: 'plans', topic: null };
const note = m(2, 'plans', ana, { type: 'ThreadCreated', reference: { messageId: null, channelId: THREAD, guildId: GUILD.id } });
const after = { after: at(5), before: null };

let f: ImportFixture;
const reports: RunReport[] = [];
let platform: PlatformState;

beforeAll(async () => {
  let dir: string;
  ({ f, dir } = await fixtureWithExport());
  const runs = [
    { lobby: file(LOBBY, [m(1, 'hello'), note, m(4, 'back in the channel', bo)]), thread: file(plans, [m(3, 'first in the thread')]) },
    { lobby: file(LOBBY, [m(7, 'later')], after), thread: file(plans, [m(6, 'a late answer', bo)], after) },
  ];
  for (const run of runs) {
    await writeFile(join(dir, LOBBY_FILE), run.lobby);
    await writeFile(join(dir, `Guild - Text Channels - plans [${THREAD}].json`), run.thread);
    const { config } = await writePipeline(f.dir, `name: discord\ndiscord:\n  export: ${dir}\n`);
    reports.push(await runImport({ config, stateDir: join(f.dir, `state-${reports.length}`), verify: {} }, { client: f.client }));
  }
  platform = await readPlatform(f.client);
}, 60_000);
afterAll(() => f?.close());

describe('an --after export of a thread started without a message before its range', () => {
  it('puts the new message into the thread of the note an earlier run imported, not at the channel\'s end', () => {
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.messages.map((x) => x.body)).toEqual(['hello', 'plans', 'back in the channel', 'later']);
    expect(lobby.threads.get(note.id)?.replies.map((x) => x.body)).toEqual(['first in the thread', 'a late answer']);
    expect(reports[1]!.stages.messages).toMatchObject({ read: 2, imported: 2, rejected: 0, replies: 1 });
    expect(reports[1]!.stages.messages?.orphans ?? 0).toBe(0);
    expect(reports[0]!.verification?.status).toBe('exact');
    // The platform holds the history before --after too (extra to this export), but nothing is missing or out of place.
    const verification = reports[1]!.verification;
    expect(verification !== undefined && 'stages' in verification ? verification.stages.messages?.differences : undefined).toMatchObject({ missing: 0, misplaced: 0, 'out-of-order': 0, changed: 0 });
  });
});
