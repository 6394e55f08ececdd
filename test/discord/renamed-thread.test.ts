import { describe, expect, it } from 'vitest';
import { LOBBY, LOBBY_FILE, ana, bo, file, exportedAt, importFilesClosedAfterAll, message, snowflakeAt } from './hand-made-export.js';

/**
 * A thread whose starter was deleted, renamed between two exports of it: the root put in the starter's place
 * names the thread as Discord shows it now, by its latest export's header, whichever file is read first.
 */
const at = (minute: number) => `2024-03-01T10:${String(minute).padStart(2, '0')}:00.000+01:00`;
const THREAD = snowflakeAt('2024-03-01T10:04:30.000+01:00');
const thread = (name: string) => ({ id: THREAD, type: 'GuildPublicThread', categoryId: LOBBY.id, category: 'lobby', name, topic: null });
const m = (minute: number, content: string, author = ana) => message(snowflakeAt(at(minute), minute), minute, content, author);

const importFiles = importFilesClosedAfterAll();

describe('a thread renamed between two exports, its starter deleted', () => {
  it('names the root put in the starter\'s place after the thread\'s latest name', async () => {
    const replies = [m(5, 'its starter was deleted', bo)];
    const { report, platform } = await importFiles({
      [LOBBY_FILE]: file(LOBBY, [m(1, 'hello'), m(9, 'back')]),
      [`a gone [${THREAD}].json`]: exportedAt(file(thread('gone'), replies), '2024-03-02T00:00:00.000+00:00'),
      [`b plans [${THREAD}].json`]: exportedAt(file(thread('plans'), replies), '2024-03-03T00:00:00.000+00:00'),
    });
    const lobby = platform.channels.find((c) => c.slackId === LOBBY.id)!;
    expect(lobby.messages.map((x) => x.body)).toEqual(['hello', 'Original message was deleted (thread: plans)', 'back']);
    expect(report.verification?.status).toBe('exact');
  });
});
