import { describe, expect, it } from 'vitest';
import { mergeExports, type ExportSource } from '../../src/pipeline/discord/merged-exports.js';
import type { MessageOutcome } from '../../src/transform/chat-export/index.js';

const at = (day: number) => `2024-03-${String(day).padStart(2, '0')}T00:00:00.000Z`;
const outcome = (id: string, day: number): MessageOutcome => ({ kind: 'message', message: { id, channelId: '1', body: id, facts: { ts: at(day), time: at(day) }, position: { file: 'f', index: 0 } } });

describe('exports of one channel merged by time', () => {
  it('opens an export only once the merge reaches the start of its range (memory: one read-ahead per export in range)', async () => {
    const opened: string[] = [];
    const source = (name: string, from: string, days: number[]): ExportSource => ({
      from, exportedAt: NaN,
      read: async function* () {
        opened.push(name);
        for (const day of days) yield [outcome(`${name}${day}`, day)];
      },
    });
    const seen: string[] = [];
    const daily = [2, 3, 4].map((day) => source('d', at(day), [day]));
    for await (const batch of mergeExports([source('whole', '', [1]), ...daily], 1)) for (const o of batch) seen.push(`${(o as { message: { id: string } }).message.id} (open ${opened.length})`);
    expect(seen).toEqual(['whole1 (open 1)', 'd2 (open 2)', 'd3 (open 3)', 'd4 (open 4)']);
  });
});
