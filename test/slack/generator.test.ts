import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { generateSlackExport, type GeneratorStats } from '../../fixtures/slack/generator/index.js';
import { useTempDir } from './helpers/temp.js';

async function zipNames(path: string): Promise<string[]> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  const names: string[] = [];
  for await (const entry of zip.eachEntry()) names.push(entry.fileName);
  zip.close();
  return names;
}

async function readDays(root: string): Promise<Map<string, Record<string, unknown>[]>> {
  const days = new Map<string, Record<string, unknown>[]>();
  for (const folder of await readdir(root, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const file of (await readdir(join(root, folder.name))).sort())
      days.set(`${folder.name}/${file}`, JSON.parse(await readFile(join(root, folder.name, file), 'utf8')) as Record<string, unknown>[]);
  }
  return days;
}

describe('the synthetic export generator', () => {
  let dir: string;
  let stats: GeneratorStats;
  let days: Map<string, Record<string, unknown>[]>;

  beforeAll(async () => {
    dir = await useTempDir();
    stats = await generateSlackExport({ out: join(dir, 'folder'), seed: 7, messages: 1500, longEvery: 700 });
    days = await readDays(join(dir, 'folder'));
  });

  it('writes exactly the number of messages asked for', () => {
    const total = [...days.values()].reduce((n, d) => n + d.length, 0);
    expect(total).toBe(1500);
    expect(stats.messages).toBe(1500);
  });

  it('is deterministic: the same seed gives a byte-identical zip, another seed a different one', async () => {
    await generateSlackExport({ out: join(dir, 'a.zip'), seed: 7, messages: 300 });
    await generateSlackExport({ out: join(dir, 'b.zip'), seed: 7, messages: 300 });
    await generateSlackExport({ out: join(dir, 'c.zip'), seed: 8, messages: 300 });
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => readFile(join(dir, `${n}.zip`))));
    expect(a!.equals(b!)).toBe(true);
    expect(a!.equals(c!)).toBe(false);
  });

  it('zips carry __MACOSX entries beside the export', async () => {
    const names = await zipNames(join(dir, 'a.zip'));
    expect(names).toContain('users.json');
    expect(names.filter((n) => n.startsWith('__MACOSX/')).length).toBeGreaterThan(3);
  });

  it('has the edge cases the mapping must handle', async () => {
    const all = [...days.entries()];
    const messages = all.flatMap(([, d]) => d);
    const users = JSON.parse(await readFile(join(dir, 'folder', 'users.json'), 'utf8')) as Record<string, unknown>[];
    const mpims = JSON.parse(await readFile(join(dir, 'folder', 'mpims.json'), 'utf8')) as { members: string[] }[];
    const userIds = new Set(users.map((u) => u.id));

    // Replies in a later day file than their root.
    const rootDay = new Map<string, string>();
    for (const [path, d] of all) for (const m of d) if (m.thread_ts === m.ts) rootDay.set(`${path.split('/')[0]}|${String(m.ts)}`, path);
    const lateReplies = all.filter(([path, d]) => d.some((m) => m.thread_ts !== undefined && m.thread_ts !== m.ts && rootDay.get(`${path.split('/')[0]}|${String(m.thread_ts)}`) !== undefined && rootDay.get(`${path.split('/')[0]}|${String(m.thread_ts)}`) !== path));
    expect(lateReplies.length).toBeGreaterThan(0);
    expect(stats.repliesInLaterDayFile).toBeGreaterThan(0);

    expect(users.some((u) => u.deleted === true)).toBe(true);
    expect(users.some((u) => u.is_restricted === true) && users.some((u) => u.is_ultra_restricted === true)).toBe(true);
    expect(messages.some((m) => m.bot_id !== undefined && !users.some((u) => (u.profile as { bot_id?: string } | undefined)?.bot_id === m.bot_id))).toBe(true);
    expect(messages.some((m) => typeof m.user === 'string' && !userIds.has(m.user))).toBe(true);
    expect(messages.some((m) => typeof m.text === 'string' && /[\u0590-\u05FF\u0600-\u06FF]/.test(m.text))).toBe(true);
    expect(messages.some((m) => typeof m.text === 'string' && /\p{Extended_Pictographic}/u.test(m.text))).toBe(true);
    expect(messages.filter((m) => typeof m.text === 'string' && m.text.length > 40_000).length).toBeGreaterThanOrEqual(2);
    expect(all.some(([, d]) => d.length === 0)).toBe(true);
    expect(mpims.some((m) => m.members.length > 10)).toBe(true);
    expect(messages.some((m) => m.edited !== undefined)).toBe(true);
    expect(messages.some((m) => (m.files as { mode?: string }[] | undefined)?.some((f) => f.mode === 'tombstone'))).toBe(true);
    expect(messages.some((m) => (m.reactions as { name: string }[] | undefined)?.some((r) => r.name.includes('::skin-tone-')))).toBe(true);
    expect(new Set(messages.map((m) => m.subtype)).size).toBeGreaterThan(8);
  });

  it('never repeats a ts inside a conversation', () => {
    const seen = new Map<string, Set<string>>();
    for (const [path, d] of days) {
      const folder = path.split('/')[0]!;
      const set = seen.get(folder) ?? new Set<string>();
      for (const m of d) {
        expect(set.has(String(m.ts))).toBe(false);
        set.add(String(m.ts));
      }
      seen.set(folder, set);
    }
  });
});
