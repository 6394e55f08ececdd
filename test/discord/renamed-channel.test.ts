import { describe, expect, it } from 'vitest';
import { LOBBY, bo, file, exportedAt, importFilesClosedAfterAll, message } from './hand-made-export.js';

/**
 * A channel renamed (or given a topic) between two exports of it: each file's header has the channel as
 * it was when that file was exported. Discord shows the current name, as chatport does for renamed
 * people: the header of the channel's latest export (its `exportedAt`) names the channel.
 */
const m1 = message('927400000000000001', 1, 'one');
const m2 = message('927400000000000002', 2, 'two', bo);
const m3 = message('927400000000000003', 3, 'three');
const HALL = { ...LOBBY, name: 'hall', topic: 'the new hall' };

const importFiles = importFilesClosedAfterAll();

describe('a channel renamed between two exports of it', () => {
  it('takes the name and topic of the latest export, an --after export read after the first', async () => {
    const { report, platform } = await importFiles({
      'Guild - Text Channels - lobby [661735342080000001].json': exportedAt(file(LOBBY, [m1, m2]), '2024-03-01T10:02:30.000+00:00'),
      'Guild - Text Channels - hall [661735342080000001] (after 2024-03-01 10-02).json': exportedAt(file(HALL, [m3], { after: '2024-03-01T10:02:30.000+01:00', before: null }), '2024-04-01T00:00:00.000+00:00'),
    });
    expect(report.stages.channels).toMatchObject({ read: 1, imported: 1, rejected: 0 });
    expect(report.verification?.status).toBe('exact');
    expect(platform.channels.map((c) => [c.slackId, c.name, c.source.topic, c.messages.map((x) => x.body)])).toEqual([[LOBBY.id, 'hall', { text: 'the new hall' }, ['one', 'two', 'three']]]);
  });

  it('takes the latest export\'s header when two whole exports sort the other way by name', async () => {
    const { report, platform } = await importFiles({
      '2024-05 lobby [661735342080000001].json': exportedAt(file(LOBBY, [m1, m2]), '2024-05-01T00:00:00.000+00:00'),
      '0-newest hall [661735342080000001].json': exportedAt(file(HALL, [m1, m2, m3]), '2024-06-01T00:00:00.000+00:00'),
      '2023-12 lobby [661735342080000001].json': exportedAt(file(LOBBY, [m1]), '2023-12-01T00:00:00.000+00:00'),
    });
    expect(report.verification?.status).toBe('exact');
    expect(platform.channels.map((c) => [c.name, c.source.topic])).toEqual([['hall', { text: 'the new hall' }]]);
  });
});
