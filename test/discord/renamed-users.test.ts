import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/pipeline/report.js';
import type { ImportFixture } from '../import/support.js';
import type { PlatformState } from '../slack-migration/support.js';
import { LOBBY, LOBBY_FILE, ana, bo, file, importFiles, message, snowflakeAt } from './hand-made-export.js';

/**
 * A user renamed during the export's span: DiscordChatExporter writes each message's author (and mentioned
 * and reacting users) as they were when that file was exported, so two exports of a guild, or a guild read
 * channel by channel, name one person both ways. Discord shows everyone by their current name.
 */
const GENERAL = { ...LOBBY, id: '661735342080000002', name: 'general' };
const ZETA = { ...LOBBY, id: '661735342080000003', name: 'zeta' };
const at = (minute: number) => `2024-03-01T10:${String(minute).padStart(2, '0')}:00.000+01:00`;
const m = (minute: number, content: string, author = ana, extra: Record<string, unknown> = {}) => message(snowflakeAt(at(minute), minute), minute, content, author, extra);
const anna = { ...ana, name: 'anna', nickname: 'Anna K' };

let f: ImportFixture;
let report: RunReport;
let platform: PlatformState;

beforeAll(async () => {
  // Files are read by name: general, lobby (which ends with the new name), then zeta, holding only an older message.
  ({ f, report, platform } = await importFiles({
    'Guild - Text Channels - general [661735342080000002].json': file(GENERAL, [m(2, 'older', bo, { mentions: [ana] }), m(3, 'still old', ana)]),
    [LOBBY_FILE]: file(LOBBY, [m(1, 'hi', ana), m(5, 'new name', anna, { mentions: [bo] })]),
    'Guild - Text Channels - zeta [661735342080000003].json': file(ZETA, [m(0, 'oldest', ana)]),
  }));
}, 60_000);
afterAll(() => f?.close());

describe('a Discord user renamed within the export', () => {
  it('is imported under the name of their latest message, whichever file was read first', () => {
    expect(platform.users.map((u) => [u.name, u.displayName])).toEqual([['anna', 'Anna K'], ['bo', 'bo']]);
    expect(report.stages.users).toMatchObject({ read: 2, imported: 2, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
  });
});
