import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSlackExport } from '../../fixtures/slack/generator/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, readRawExport, type PlatformChannel, type PlatformMessage, type Json, type PlatformState, type RawExport } from './support.js';

/**
 * A generated export of a few thousand messages (every edge case of the generator: guests, a deleted
 * user, bots with and without a user, people absent from users.json, a 12-person group DM, an archived
 * channel, threads whose replies fall in later day files, messages over the body limit) imported
 * through runImport into the sandbox, then read back through the API and compared with the export.
 */
const MESSAGES = 3000;
const TEAM = 'T0GENERATED';
/** Writes and resolves the pipeline over `exportPath` in `dir` (created). */
async function slackPipeline(dir: string, exportPath: string) {
  await mkdir(dir, { recursive: true });
  return (await writePipeline(dir, `name: slack\nslack:\n  export: ${exportPath}\noptions: { chunkRecords: 400, concurrency: 3 }\n`)).config;
}

let f: ImportFixture;
let raw: RawExport;
let report: RunReport;
let platform: PlatformState;
let folder: string;
let zip: string;
let usernameOf: Map<string, string>;

beforeAll(async () => {
  f = await startImportFixture();
  folder = join(f.dir, 'export');
  zip = join(f.dir, 'export.zip');
  await generateSlackExport({ out: folder, seed: 7, messages: MESSAGES, longEvery: 700 });
  await generateSlackExport({ out: zip, seed: 7, messages: MESSAGES, longEvery: 700 });
  const config = await slackPipeline(join(f.dir, 'folder-run'), folder);
  report = await runImport({ config, stateDir: join(f.dir, 'folder-run', 'state') }, { client: f.client });
  raw = await readRawExport(folder);
  platform = await readPlatform(f.client);
  usernameOf = new Map(platform.users.map((u) => [String(u.source.id), u.name]));
}, 60_000);
afterAll(() => f?.close());

const channelOf = (slackId: string): PlatformChannel => {
  const channel = platform.channels.find((c) => c.slackId === slackId);
  if (!channel) throw new Error(`no platform channel for ${slackId}`);
  return channel;
};
const rawUser = (id: string) => raw.users.find((u) => u.id === id)!;

describe('a generated Slack export imported through the pipeline', () => {
  it('balances: every item read is imported, nothing rejected or skipped, a split message counted per part', () => {
    expect(report.status).toBe('succeeded');
    expect(report.totals).toMatchObject({ rejected: 0, skipped: 0, pending: 0, balanced: true });
    for (const counts of Object.values(report.stages)) expect(counts.imported).toBe(counts.read);
    const extraParts = platform.channels.flatMap((c) => c.messages).filter((m) => ((m.source.part as { index: number } | undefined)?.index ?? 1) > 1).length;
    expect(extraParts).toBeGreaterThan(0);
    // A reply also sent to the channel has a copy there, a record of its own (each part).
    const broadcastCopies = platform.channels.flatMap((c) => c.messages).filter((m) => m.source.broadcastOf !== undefined && ((m.source.part as { index: number } | undefined)?.index ?? 1) === 1).length;
    expect(broadcastCopies).toBeGreaterThan(0);
    expect(report.stages.messages!.read).toBe(MESSAGES + extraParts + broadcastCopies);
    expect(report.stages.users!.read).toBe(platform.users.length);
    expect(report.stages.channels!.read).toBe(raw.conversations.length);
  });

  it('holds every user of users.json, marked as the export has them, plus placeholders for authors it lacks', () => {
    for (const u of raw.users) expect(usernameOf.has(String(u.id)), String(u.id)).toBe(true);
    const byId = new Map(platform.users.map((u) => [String(u.source.id), u]));
    expect(byId.get('U0003')).toMatchObject({ isGuest: true, source: { guest: 'restricted' } });
    expect(byId.get('U0004')).toMatchObject({ isGuest: true, source: { guest: 'ultra_restricted' } });
    expect(byId.get('U0005')).toMatchObject({ isGuest: false, source: { deleted: true, userKind: 'person' } });
    expect(byId.get('U0B01')).toMatchObject({ name: 'buildbot', source: { userKind: 'bot', botId: 'B0001' } });
    expect(byId.get('U0A01')).toMatchObject({ name: 'helper-app', source: { userKind: 'app' } });
    expect(byId.get('U0001')!.source.roles).toEqual(expect.arrayContaining(['primary_owner', 'owner', 'admin']));
    // Handles made valid and unique; display names from display_name, then real_name, then the handle.
    expect([byId.get('U0007')!.name, byId.get('U0008')!.name]).toEqual(['same.handle', 'same.handle-2']);
    expect(byId.get('U0006')).toMatchObject({ name: 'zoë-tavmir', displayName: 'זואי', source: { handle: 'Zoë Tavmir!' } });
    expect(byId.get('U0009')!.displayName).toBe(rawUser('U0009').name);
    // People and bots that post but are not in users.json.
    const placeholders = platform.users.filter((u) => u.source.userKind === 'placeholder');
    expect(placeholders.map((u) => u.source.id)).toEqual(expect.arrayContaining(['U9GHOST1', 'U9GHOST2', 'B0999']));
    expect(byId.get('U9GHOST1')).toMatchObject({ name: 'visiting.partner', displayName: 'Visiting Partner' });
    expect(platform.users).toHaveLength(raw.users.length + placeholders.length);
  });

  it('holds every conversation with its type: channels PUBLIC, groups PRIVATE, DMs DIRECT, a 12-person group DM PRIVATE', () => {
    expect(platform.channels).toHaveLength(raw.conversations.length);
    for (const conv of raw.conversations) {
      const channel = channelOf(conv.id);
      const members = (conv.record.members as string[]).length;
      const expected = conv.kind === 'channel' ? 'PUBLIC' : conv.kind === 'group' ? 'PRIVATE' : members <= 10 ? 'DIRECT' : 'PRIVATE';
      expect(channel.type, conv.id).toBe(expected);
      expect(channel.chatportKey).toBe(`${TEAM}/${conv.id}`);
      expect(channel.source).toMatchObject({ system: 'slack', kind: 'channel', workspace: TEAM, conversationType: conv.kind, archived: conv.record.is_archived === true });
    }
    expect(platform.channels.filter((c) => c.source.conversationType === 'mpim' && c.type === 'PRIVATE')).toHaveLength(1);
    const oldProject = channelOf('C0004');
    expect(oldProject.source).toMatchObject({ archived: true, topic: { text: 'about old-project', setBy: 'U0001' }, purpose: { text: 'old-project talk' } });
    // "-general-" becomes "general", which #general has: the group gets "general-2".
    expect(channelOf('G0002').name).toBe('general-2');
    expect(channelOf('C0003')).toMatchObject({ name: 'café', displayName: 'café-☕' });
  });

  it('holds every membership the export lists (members of DIRECT channels, memberships of the others)', () => {
    for (const conv of raw.conversations) {
      const expected = (conv.record.members as string[]).map((id) => usernameOf.get(id)!).sort();
      expect(channelOf(conv.id).members, conv.id).toEqual(expected);
    }
  });

  it('holds every channel message in the export\'s order, parts together, and every reply in its root\'s thread in order', () => {
    let threaded = 0;
    for (const conv of raw.conversations) {
      const channel = channelOf(conv.id);
      const roots = new Set(conv.messages.filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts).map((m) => m.ts));
      const isReply = (m: Json) => m.thread_ts !== undefined && m.thread_ts !== m.ts && roots.has(m.thread_ts);
      // A reply also sent to the channel is in its thread and, as a copy, in the channel at its time.
      const inChannel = (m: Json) => !isReply(m) || m.subtype === 'thread_broadcast';
      const whole = (list: PlatformMessage[]) => list.filter((m) => ((m.source.part as { index: number } | undefined)?.index ?? 1) === 1);
      expect(whole(channel.messages).map((m) => m.source.ts), conv.id).toEqual(conv.messages.filter(inChannel).map((m) => m.ts));
      for (const [i, m] of channel.messages.entries()) {
        const part = m.source.part as { index: number; count: number } | undefined;
        if (part && part.index > 1) expect(channel.messages[i - 1]!.source.part).toEqual({ index: part.index - 1, count: part.count });
      }
      for (const root of conv.messages.filter((m) => roots.has(m.ts) && m.thread_ts === m.ts)) {
        const replies = conv.messages.filter((m) => isReply(m) && m.thread_ts === root.ts).map((m) => m.ts);
        const thread = channel.threads.get(`${conv.id}/${String(root.ts)}`);
        if (replies.length === 0) {
          expect(thread, `${conv.id} ${String(root.ts)}`).toBeUndefined();
          continue;
        }
        expect(whole(thread!.replies).map((m) => m.source.ts), `${conv.id} ${String(root.ts)}`).toEqual(replies);
        expect(thread!.repliesCount).toBe(thread!.replies.length);
        threaded += replies.length;
      }
      for (const [i, m] of [...channel.messages, ...[...channel.threads.values()].flatMap((t) => t.replies)].entries())
        if (m.type === 'TEXT') expect(m.user, `${conv.id} #${i}`).toBe(usernameOf.get(String(m.source.author)));
    }
    expect(threaded).toBeGreaterThan(0);
    expect(report.stages.messages!.replies).toBeGreaterThanOrEqual(threaded);
    // The first message of #random is 45,000 characters: two parts that join to the original text.
    const random = channelOf('C0002').messages;
    expect(random[0]!.source.part).toEqual({ index: 1, count: 2 });
    expect(random[0]!.body + random[1]!.body).toBe(raw.conversations.find((c) => c.id === 'C0002')!.messages[0]!.text);
  });

  it('converts mentions, links and entities into readable text and keeps the source facts', () => {
    const all = raw.conversations.flatMap((c) => c.messages.map((m) => ({ conv: c.id, m })));
    const platformMessage = (conv: string, ts: unknown) => channelOf(conv).messages.find((m) => m.source.ts === ts)!;
    const mention = all.find(({ m }) => /^hey <@U\d+> /.test(String(m.text)))!;
    const mentioned = /<@(U\d+)>/.exec(String(mention.m.text))![1]!;
    expect(platformMessage(mention.conv, mention.m.ts)).toMatchObject({
      body: String(mention.m.text).replace(`<@${mentioned}>`, `@${usernameOf.get(mentioned)}`),
      source: { mentions: { users: [mentioned] } },
    });
    const link = all.find(({ m }) => String(m.text).startsWith('read <https://docs.example.invalid'))!;
    expect(platformMessage(link.conv, link.m.ts).body).toBe('read the docs (https://docs.example.invalid/page?a=1&b=2) or https://example.invalid/plain');
    const entities = all.find(({ m }) => String(m.text).startsWith('mail <mailto:'))!;
    expect(platformMessage(entities.conv, entities.m.ts).body).toBe('mail team@example.invalid & <escaped> *bold* _italic_ ~strike~ :tada:');
    const channelRef = all.find(({ m }) => String(m.text).startsWith('see <#C0003|'))!;
    expect(platformMessage(channelRef.conv, channelRef.m.ts).body).toMatch(/^see #café for /);
    const broadcast = all.find(({ m }) => String(m.text).startsWith('<!here> '))!;
    expect(platformMessage(broadcast.conv, broadcast.m.ts).body).toMatch(/^@here /);
    // Bots are their users; a file is a link line with its metadata in properties.
    const bot = all.find(({ m }) => m.bot_id === 'B0001')!;
    expect(platformMessage(bot.conv, bot.m.ts)).toMatchObject({ type: 'TEXT', user: 'buildbot', source: { authorKind: 'bot' } });
    const file = all.find(({ m }) => Array.isArray(m.files) && (m.files as Array<{ mode: string }>)[0]!.mode === 'hosted')!;
    const withFile = platformMessage(file.conv, file.m.ts);
    expect(withFile.body).toContain('[file: ');
    expect(withFile.body).not.toContain('t=EXPORT-TOKEN');
    expect(withFile.source.files).toEqual([expect.objectContaining({ state: 'available' })]);
    const system = all.find(({ m }) => m.subtype === 'channel_join')!;
    expect(platformMessage(system.conv, system.m.ts)).toMatchObject({ type: 'SYSTEM_TEXT', source: { subtype: 'channel_join', time: expect.stringMatching(/^20\d\d-/) } });
  });

  it('adds nothing when run again', async () => {
    const config = await slackPipeline(join(f.dir, 'folder-run'), folder);
    const again = await runImport({ config, stateDir: join(f.dir, 'folder-run', 'state') }, { client: f.client });
    expect(again.runId).not.toBe(report.runId);
    expect(again.totals).toEqual(report.totals);
    expect(await readPlatform(f.client)).toEqual(platform);
  }, 60_000);

  it('gives the same platform from the zip as from the folder', async () => {
    const other = await startImportFixture();
    try {
      const config = await slackPipeline(join(other.dir, 'zip-run'), zip);
      const fromZip = await runImport({ config, stateDir: join(other.dir, 'zip-run', 'state') }, { client: other.client });
      expect(fromZip.totals).toEqual(report.totals);
      expect(await readPlatform(other.client)).toEqual(platform);
    } finally {
      await other.close();
    }
  }, 60_000);
});
