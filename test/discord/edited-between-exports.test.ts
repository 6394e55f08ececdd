import { describe, expect, it } from 'vitest';
import { LOBBY, bo, file, exportedAt, importFilesClosedAfterAll, message } from './hand-made-export.js';

/**
 * One channel exported twice, the second time after a message was edited: both files hold that message.
 * Discord shows the edited text, so the latest copy (its edit time, else the later export) is imported, once,
 * at the message's place, whichever file is read first; the older copy is skipped, not rejected.
 */
const HALL = { ...LOBBY, id: '661735342080000002', name: 'hall' };
const edited = (id: string, minute: number, content: string) => message(id, minute, content, bo, { timestampEdited: '2024-03-02T10:00:00.000+01:00' });

const importFiles = importFilesClosedAfterAll();

describe('a message edited between two exports of its channel', () => {
  it('imports the latest copy once, in its place, and rejects nothing', async () => {
    const [one, three, four] = [message('927400000000000001', 1, 'one'), message('927400000000000003', 3, 'three'), message('927400000000000004', 4, 'four')];
    const { report, platform } = await importFiles({
      // Read first (its range starts first): the older export. The newer one, an --after export, holds the edit.
      'lobby [661735342080000001].json': exportedAt(file(LOBBY, [one, message('927400000000000002', 2, 'helo', bo), three]), '2024-03-01T12:00:00.000+00:00'),
      'lobby [661735342080000001] (after).json': exportedAt(file(LOBBY, [edited('927400000000000002', 2, 'hello'), three, four], { after: '2024-03-01T10:01:30.000+01:00', before: null }), '2024-03-03T12:00:00.000+00:00'),
      // Two whole exports; the newer sorts first by name, the older one holds the copy before the edit.
      '0 hall [661735342080000002].json': exportedAt(file(HALL, [one, edited('927400000000000002', 2, 'hello')]), '2024-03-03T12:00:00.000+00:00'),
      '1 hall [661735342080000002].json': exportedAt(file(HALL, [one, message('927400000000000002', 2, 'helo', bo)]), '2024-03-01T12:00:00.000+00:00'),
    });
    expect(platform.channels.map((c) => [c.name, c.messages.map((x) => x.body)])).toEqual([['lobby', ['one', 'hello', 'three', 'four']], ['hall', ['one', 'hello']]]);
    expect(report.stages.messages).toMatchObject({ read: 10, imported: 6, duplicates: 2, skipped: 2, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
  });
});
