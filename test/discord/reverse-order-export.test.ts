import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportFixture } from '../import/support.js';
import { LOBBY, bo, file, importFiles, message } from './hand-made-export.js';

/**
 * DiscordChatExporter's reverse order (`MessageOrder.Reverse`) writes a file's messages newest first, and
 * with --partition its first part holds the newest. Discord shows a channel oldest first, whichever way
 * the file lists it.
 */
const ids = (n: number) => `92740000000000000${n}`;
const m1 = message(ids(1), 1, 'one');
const m2 = message(ids(2), 2, 'two', bo);
const m3 = message(ids(3), 3, 'answer to one', bo, { type: 'Reply', reference: { messageId: ids(1), channelId: LOBBY.id, guildId: null } });
const m4 = message(ids(4), 4, 'four');
const m5 = message(ids(5), 5, 'five', bo);

const fixtures: ImportFixture[] = [];
afterAll(async () => {
  for (const f of fixtures) await f.close();
});

/** The files imported: the channel reads oldest first, the inline reply in the thread of the message it answers. */
async function expectOldestFirst(files: Record<string, string>): Promise<void> {
  const { f, report, platform } = await importFiles(files);
  fixtures.push(f);
  expect(report.stages.messages).toMatchObject({ read: 5, imported: 5, rejected: 0 });
  expect(report.verification?.status).toBe('exact');
  const lobby = platform.channels[0]!;
  expect(lobby.messages.map((m) => m.body)).toEqual(['one', 'two', 'four', 'five']);
  expect(lobby.threads.get(ids(1))?.replies.map((r) => r.body)).toEqual(['answer to one']);
}

describe('a DiscordChatExporter file written newest first', () => {
  it('is imported oldest first, its inline reply in the thread of the message it answers', async () => {
    await expectOldestFirst({ 'Guild - Text Channels - lobby [661735342080000001].json': file(LOBBY, [m5, m4, m3, m2, m1]) });
  });

  it('reads --partition parts written newest first from the oldest part', async () => {
    await expectOldestFirst({
      'Guild - Text Channels - lobby [661735342080000001] [part 1].json': file(LOBBY, [m5, m4]),
      'Guild - Text Channels - lobby [661735342080000001] [part 2].json': file(LOBBY, [m3, m2]),
      'Guild - Text Channels - lobby [661735342080000001] [part 3].json': file(LOBBY, [m1]),
    });
  });

  it('larger than can be read whole: rejected naming the file and the order, never imported backwards', async () => {
    // 17 MiB: past what is read whole, so the file is streamed and cannot be turned around in memory.
    const padded = { ...m5, padding: 'x'.repeat(17 * 2 ** 20) };
    const { f, report, platform } = await importFiles({ 'Guild - Text Channels - lobby [661735342080000001].json': file(LOBBY, [padded, m4, m2, m1]) });
    fixtures.push(f);
    expect(report.stages.messages).toMatchObject({ imported: 0, rejected: 1 });
    expect(platform.channels.flatMap((c) => c.messages)).toEqual([]);
    const rejects = await readFile(join(report.runDir, 'rejects.ndjson'), 'utf8');
    expect(rejects).toContain('lists its messages newest first');
  });
});

