import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDiscordExport } from '../../fixtures/discord/generator/index.js';
import { runImport } from '../../src/pipeline/import/run-import.js';
import type { RunReport } from '../../src/pipeline/report.js';
import { startImportFixture, writePipeline, type ImportFixture } from '../import/support.js';
import { readPlatform, type Json, type PlatformChannel, type PlatformState } from '../slack-migration/support.js';

/**
 * A generated DiscordChatExporter export (every edge case of its generator, a channel written in parts)
 * imported into the sandbox and read back through the API: users, channels by type, members, messages per
 * channel in order, threads and inline replies in reply threads, converted text and kept facts. The
 * expectations come from the export's files read with plain JSON.parse.
 */
interface RawFile {
  file: string;
  channel: Json & { id: string; type: string; categoryId: string | null; name: string };
  messages: Array<Json & { id: string; type: string; content: string; author: Json & { id: string }; reference?: { messageId: string } }>;
}

let f: ImportFixture;
let report: RunReport;
let platform: PlatformState;
let raw: RawFile[];
const MESSAGES = 1500;

beforeAll(async () => {
  f = await startImportFixture();
  const folder = join(f.dir, 'export');
  await generateDiscordExport({ out: folder, seed: 5, messages: MESSAGES, longEvery: 600, partition: 200 });
  raw = await Promise.all((await readdir(folder)).sort().map(async (file) => ({ file, ...(JSON.parse(await readFile(join(folder, file), 'utf8')) as Omit<RawFile, 'file'>) })));
  const { config } = await writePipeline(f.dir, `name: discord\ndiscord:\n  export: ${folder}\noptions: { chunkRecords: 300, concurrency: 3 }\n`);
  report = await runImport({ config, stateDir: join(f.dir, 'state'), verify: {} }, { client: f.client });
  platform = await readPlatform(f.client);
}, 120_000);
afterAll(() => f?.close());

const THREADS = new Set(['GuildPublicThread', 'GuildPrivateThread']);
/** A channel's own files: a private thread is a channel of its own (its invited people only), as is a thread whose parent is not exported. */
const channelFiles = () => raw.filter((r) => !THREADS.has(r.channel.type) || r.channel.type === 'GuildPrivateThread' || !raw.some((p) => p.channel.id === r.channel.categoryId));
const channelOf = (id: string): PlatformChannel => platform.channels.find((c) => c.slackId === id)!;
const partsOf = (body: string) => Math.max(1, Math.ceil(body.length / 40_000));

/** What each channel and each reply thread should hold, simulated in the order the reader takes the files. */
function expected() {
  const channels = new Map<string, string[]>();
  const threads = new Map<string, string[]>();
  const byChannel = new Map<string, RawFile[]>();
  for (const r of channelFiles()) byChannel.set(r.channel.id, [...(byChannel.get(r.channel.id) ?? []), r]);
  for (const r of raw) if (!byChannel.has(r.channel.id)) byChannel.get(r.channel.categoryId!)!.push(r);
  for (const [id, files] of byChannel) {
    const roots = new Map<string, string>();
    const list: string[] = [];
    for (const r of files) {
      const threadId = r.channel.id === id ? undefined : r.channel.id;
      for (const m of r.messages) {
        if (m.type === 'ThreadStarterMessage') continue;
        const parts = Array.from({ length: partsOf(m.content) }, () => m.id);
        let root: string | undefined;
        if (threadId !== undefined && m.id !== threadId) root = roots.get(threadId) ?? threadId;
        else if (threadId === undefined && m.type === 'Reply') root = roots.get(m.reference!.messageId) ?? m.reference!.messageId;
        roots.set(m.id, root ?? m.id);
        if (root === undefined) list.push(...parts);
        else threads.set(root, [...(threads.get(root) ?? []), ...parts]);
      }
    }
    channels.set(id, list);
  }
  return { channels, threads };
}

describe('a generated Discord export imported through the pipeline', () => {
  it('balances and verifies: thread starters skipped (their root is in the channel), nothing rejected', () => {
    expect(report.status).toBe('succeeded');
    expect(report.totals).toMatchObject({ rejected: 0, pending: 0, balanced: true });
    const starters = raw.flatMap((r) => r.messages).filter((m) => m.type === 'ThreadStarterMessage').length;
    expect(starters).toBeGreaterThan(0);
    expect(report.stages.messages!.skipped).toBe(starters);
    expect(report.verification?.status).toBe('exact');
  });

  it('holds every author, mentioned and reacting user once; deleted users, bots and webhooks marked', () => {
    const ids = new Set<string>();
    for (const m of raw.flatMap((r) => r.messages)) {
      ids.add(m.author.id);
      for (const u of (m.mentions as Json[] | undefined) ?? []) ids.add(String(u.id));
      for (const r of (m.reactions as Array<{ users: Json[] }> | undefined) ?? []) for (const u of r.users) ids.add(String(u.id));
    }
    expect(new Set(platform.users.map((u) => String(u.source.id)))).toEqual(ids);
    const kindOf = (name: string) => platform.users.find((u) => raw.flatMap((r) => r.messages).some((m) => m.author.name === name && String(m.author.id) === String(u.source.id)))!.source;
    expect(kindOf('Deleted User')).toMatchObject({ deleted: true, userKind: 'person' });
    expect(kindOf('Helper Bot')).toMatchObject({ userKind: 'bot' });
    expect(kindOf('Deploy Alerts')).toMatchObject({ userKind: 'app', extra: { webhook: true } });
    // Snowflakes beyond 2^53 kept exact.
    expect([...ids].every((id) => BigInt(id) > 2n ** 53n)).toBe(true);
  });

  it('makes channels of the right types: DM DIRECT, a 12-person group DM PRIVATE, a thread without its forum a channel', () => {
    expect(platform.channels.map((c) => c.slackId).sort()).toEqual(channelFiles().map((r) => r.channel.id).filter((id, i, a) => a.indexOf(id) === i).sort());
    const typeOf = (name: string) => channelOf(raw.find((r) => r.channel.name === name)!.channel.id);
    expect(typeOf('lobby').type).toBe('PUBLIC');
    expect(typeOf('big group')).toMatchObject({ type: 'PRIVATE', source: { typeChange: { from: 'DIRECT', to: 'PRIVATE' } } });
    expect(typeOf('small group').type).toBe('DIRECT');
    expect(typeOf('lonely forum post').source).toMatchObject({ conversationType: 'GuildPublicThread' });
    // A private thread: a PRIVATE channel of the people who wrote in it, not a reply thread every lobby member reads.
    const privateThreads = raw.filter((r) => r.channel.type === 'GuildPrivateThread' && r.channel.categoryId === typeOf('lobby').slackId);
    expect(privateThreads.length).toBeGreaterThan(0);
    for (const t of privateThreads) {
      // The starter's copy names the thread's starter, who is invited to it.
      const writers = new Set(t.messages.map((m) => m.author.id));
      expect(channelOf(t.channel.id)).toMatchObject({ type: 'PRIVATE', members: platform.users.filter((u) => writers.has(String(u.source.id))).map((u) => u.name).sort() });
    }
    // Members: the people who wrote in the channel or its public threads.
    const lobby = raw.filter((r) => r.channel.name === 'lobby' || (r.channel.categoryId === typeOf('lobby').slackId && r.channel.type !== 'GuildPrivateThread'));
    const authors = new Set(lobby.flatMap((r) => r.messages).filter((m) => m.type !== 'ThreadStarterMessage').map((m) => m.author.id));
    expect(typeOf('lobby').members).toEqual(platform.users.filter((u) => authors.has(String(u.source.id))).map((u) => u.name).sort());
  });

  it('puts every message in its channel in source order, and replies and threads into their roots\' reply threads', () => {
    const want = expected();
    for (const [id, ids] of want.channels) expect({ id, ids: channelOf(id).messages.map((m) => String(m.source.id)) }).toEqual({ id, ids });
    const held = new Map<string, string[]>();
    for (const c of platform.channels) for (const [root, t] of c.threads) held.set(root, t.replies.map((m) => String(m.source.id)));
    expect(held).toEqual(want.threads);
    expect(want.threads.size).toBeGreaterThan(10);
  });

  it('turns markup into readable text and keeps files, reactions, pins, edits, embeds and replies in properties', () => {
    const messages = platform.channels.flatMap((c) => [...c.messages, ...[...c.threads.values()].flatMap((t) => t.replies)]);
    const byId = new Map(messages.map((m) => [String(m.source.id), m]));
    const rawMessages = raw.flatMap((r) => r.messages);
    const mention = rawMessages.find((m) => /^hey <@\d+>/.test(m.content))!;
    const mentioned = platform.users.find((u) => String(u.source.id) === /<@(\d+)>/.exec(mention.content)![1])!;
    expect(byId.get(mention.id)!.body).toMatch(new RegExp(`^hey @${mentioned.name.replace(/[.]/g, '\\.')}, see #\\S+ \\*\\*now\\*\\*$`));
    const emoji = rawMessages.find((m) => m.content.includes('<:party_parrot:'))!;
    expect(byId.get(emoji.id)!.body).toContain(':party_parrot: :dance:');
    const stamp = rawMessages.find((m) => m.content.includes('<t:'))!;
    expect(byId.get(stamp.id)!.body).toMatch(/meeting at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z for @role:\d+/);
    const file = rawMessages.find((m) => (m.attachments as unknown[]).length > 0)!;
    expect(byId.get(file.id)!.body).toContain(`[file: ${(file.attachments as Json[])[0]!.fileName}]`);
    expect(byId.get(file.id)!.source.files).toEqual([expect.objectContaining({ name: (file.attachments as Json[])[0]!.fileName, state: 'available' })]);
    expect(byId.get(rawMessages.find((m) => (m.reactions as unknown[]).length > 0)!.id)!.source.reactions).toEqual([expect.objectContaining({ emoji: 'thumbsup', count: 2 })]);
    expect(byId.get(rawMessages.find((m) => m.isPinned === true)!.id)!.source.pinned).toBe(true);
    expect(byId.get(rawMessages.find((m) => m.timestampEdited !== null && m.type !== 'ThreadStarterMessage')!.id)!.source.edited).toEqual({ time: expect.stringMatching(/Z$/) });
    const link = rawMessages.find((m) => m.content === '' && (m.embeds as unknown[]).length > 0)!;
    expect(byId.get(link.id)!.body).toContain('Release');
    const reply = rawMessages.find((m) => m.type === 'Reply')!;
    expect(byId.get(reply.id)!.source.replyTo).toEqual({ id: reply.reference!.messageId, channel: expect.any(String) });
    const system = rawMessages.find((m) => m.type === 'GuildMemberJoin')!;
    expect(byId.get(system.id)).toMatchObject({ type: 'SYSTEM_TEXT', source: { subtype: 'GuildMemberJoin' } });
    const long = rawMessages.find((m) => m.content.length > 40_000)!;
    expect(messages.filter((m) => String(m.source.id) === long.id).map((m) => m.source.part)).toEqual([{ index: 1, count: 2 }, { index: 2, count: 2 }]);
  });
});
