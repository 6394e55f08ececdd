import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import { openSlackExport } from '../../src/sources/slack/index.js';
import { compareTs, resolveMessageChannel, type Outcome, type PendingMessage } from '../../src/transform/slack/index.js';
import { ChannelImportItem, MemberImportItem, MessageImportItem, UserImportItem } from '../../src/wire/imports.js';
import { mapSlackExport, type MappedExport } from './helpers/map-export.js';
import { sourceOf } from './helpers/hand-made.js';
import { useTempDir } from './helpers/temp.js';

const DAY_FILE = /^[^/]+\/\d{4}-\d{2}-\d{2}\.json$/;

/** Counts messages straight from the zip with yauzl, independently of the reader under test. */
async function countZipMessages(path: string): Promise<{ total: number; skippable: number }> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  let total = 0;
  let skippable = 0;
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.startsWith('__MACOSX/') || !DAY_FILE.test(entry.fileName)) continue;
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    const messages = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { subtype?: string }[];
    total += messages.length;
    // System subtypes, except tombstones (kept so thread replies keep their root).
    skippable += messages.filter((m) => m.subtype !== undefined && !['bot_message', 'thread_broadcast', 'me_message', 'file_share', 'tombstone'].includes(m.subtype)).length;
  }
  zip.close();
  return { total, skippable };
}

function tally(messages: Outcome<PendingMessage>[]) {
  const counts = { items: 0, skipped: 0, rejected: 0 };
  for (const o of messages) counts[o.outcome]++;
  return counts;
}

function expectEveryItemValid(mapped: MappedExport) {
  for (const u of mapped.users) expect(UserImportItem.safeParse(u).success).toBe(true);
  for (const c of mapped.channels) expect(ChannelImportItem.safeParse(c.item).success).toBe(true);
  for (const m of mapped.members) expect(MemberImportItem.safeParse(m.item).success).toBe(true);
  const ids = new Map(mapped.channels.map((c, i) => [c.channelKey, i + 1]));
  for (const o of mapped.messages)
    if (o.outcome === 'items')
      for (const p of o.items) {
        const resolved = resolveMessageChannel(p, ids);
        expect(resolved.ok && MessageImportItem.safeParse(resolved.item).success, JSON.stringify(p).slice(0, 300)).toBe(true);
      }
}

describe('accounting: every message of a generated export is an item or counted with a reason', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await useTempDir();
  });

  it('zip, system messages skipped by option', async () => {
    const zipPath = join(dir, 'export.zip');
    await generateSlackExport({ out: zipPath, seed: 11, messages: 2500, longEvery: 900 });
    const source = await countZipMessages(zipPath);
    const exp = await openSlackExport(zipPath);
    const mapped = await mapSlackExport(exp, { systemMessages: 'skip' });
    await exp.close();

    expect(source.total).toBe(2500);
    expect(mapped.messages).toHaveLength(source.total);
    const counts = tally(mapped.messages);
    expect(counts.items + counts.skipped + counts.rejected).toBe(source.total);
    expect(counts.skipped).toBe(source.skippable);
    expect(counts.skipped).toBeGreaterThan(50);
    for (const o of mapped.messages) if (o.outcome !== 'items') expect(o.reason).toMatch(/^system message: /);

    // Each source message appears exactly once, at its own position.
    const positions = new Set(mapped.messages.map((o) => `${o.position.file}#${o.position.index}`));
    expect(positions.size).toBe(source.total);
    expectEveryItemValid(mapped);
  });

  it('folder with a broken record, an orphan folder and an unreadable day file', async () => {
    const root = join(dir, 'folder');
    await generateSlackExport({ out: root, seed: 12, messages: 800 });
    const general = join(root, 'general', '2020-09-15.json');
    const day = JSON.parse(await readFile(general, 'utf8')) as unknown[];
    day.push({ type: 'message', user: 'U0001', text: 'no ts' });
    await writeFile(general, JSON.stringify(day));
    await mkdir(join(root, 'not-in-channels-json'));
    await writeFile(join(root, 'not-in-channels-json', '2020-10-01.json'), JSON.stringify([{ type: 'message', ts: '1601510400.000100', user: 'U0001', text: 'lost?' }]));
    await writeFile(join(root, 'random', '2099-01-01.json'), '[{"type": "mess');
    await appendFile(join(root, 'integration_logs.json'), '');

    const exp = await openSlackExport(root);
    const mapped = await mapSlackExport(exp);
    await exp.close();

    const counts = tally(mapped.messages);
    expect(counts.items + counts.skipped + counts.rejected).toBe(800 + 2);
    expect(counts.rejected).toBe(1);
    expect(mapped.messages.find((o) => o.outcome === 'rejected')).toMatchObject({ position: { file: 'general/2020-09-15.json', index: day.length - 1 }, field: 'ts' });
    expect(mapped.messages.filter((o) => o.outcome === 'skipped').map((o) => (o.outcome === 'skipped' ? o.reason : ''))).toEqual([
      'folder not-in-channels-json belongs to no conversation in channels/groups/dms/mpims.json',
    ]);
    expect(mapped.dayProblems).toEqual([{ file: 'random/2099-01-01.json', problem: expect.stringContaining('not valid JSON') }]);
    expectEveryItemValid(mapped);
  });

  it('messages come per channel in ts order, replies after their roots', async () => {
    const root = join(dir, 'order');
    await generateSlackExport({ out: root, seed: 13, messages: 1200 });
    const exp = await openSlackExport(root);
    const mapped = await mapSlackExport(exp);
    await exp.close();

    const lastTs = new Map<string, string>();
    const seenRoots = new Set<string>();
    let replies = 0;
    for (const o of mapped.messages) {
      if (o.outcome !== 'items') continue;
      const facts = sourceOf(o.items[0]!.item) as { channel: string; ts: string; id: string; thread?: { root: string; isRoot: boolean; rootMissing?: boolean } };
      const previous = lastTs.get(facts.channel);
      if (previous !== undefined) expect(compareTs(facts.ts, previous)).toBeGreaterThanOrEqual(0);
      lastTs.set(facts.channel, facts.ts);
      if (facts.thread?.isRoot) seenRoots.add(facts.id);
      else if (facts.thread !== undefined) {
        replies++;
        expect(seenRoots.has(facts.thread.root)).toBe(true);
        expect(facts.thread.rootMissing).toBeUndefined();
      }
    }
    expect(replies).toBeGreaterThan(50);
  });
});
