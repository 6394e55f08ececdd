/**
 * A seeded DiscordChatExporter export for the migration's differential tests, and an oracle written from
 * the docs alone (docs/discord-migration.md, docs/threads.md, docs/accounting.md). The generator writes a
 * folder as DiscordChatExporter makes it: two guilds (a channel name in both), a channel in parts, news and
 * voice channels, DMs (one where only one person wrote, two of the same people), threads with their
 * starter copies (one whose root is gone, one whose parent is not exported), inline replies (to a thread's
 * root, to a reply, to a deleted message, into another channel), edits, attachments, stickers, embeds,
 * reactions, mentions, system messages, bots, webhooks, deleted users, emoji and CR/LF, bodies over the
 * limit, empty messages, duplicated posts, malformed messages, a file cut short and a file that is not an
 * export. The oracle says per source record what becomes of it and what the platform holds.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PipelineConfig } from '../../src/config/index.js';
import { rng } from '../helpers/rng.js';
import { longText, nameAllocator, piecesText, splitParts, strip, validName, type Expected, type ExpectedMessage, type Fate, type OracleCase, type SourceMessage } from '../slack-migration/slack-diff.js';
import type { Json, PlatformMessage } from '../slack-migration/support.js';

interface DUser {
  id: string;
  name: string;
  discriminator: string;
  nickname: string | null;
  isBot: boolean;
}

interface Guild {
  id: string;
  name: string;
}

interface Header {
  guild: Guild;
  channel: { id: string; type: string; categoryId: string | null; category: string | null; name: string; topic: string | null };
}

interface DFile {
  name: string;
  header?: Header;
  /** The messages the file holds (up to a cut). */
  messages: Json[];
  /** Cut short inside this message: the messages before it are read, the rest is one rejected record. */
  cutAt?: number;
  /** Raw text for a file that is not an export. */
  text?: string;
}

export interface DiscordCase extends OracleCase {
  seed: number;
  systemMessages: 'import' | 'skip';
  files: Array<{ name: string; data: string }>;
}

const EPOCH = 1420070400000n;
const snowflake = (ms: number, seq: number) => ((BigInt(ms) - EPOCH) * 4194304n + BigInt(seq % 4096)).toString();
const THREAD_TYPES = new Set(['GuildPublicThread', 'GuildPrivateThread', 'GuildNewsThread']);
const DIRECT_TYPES = new Set(['DirectTextChat', 'DirectGroupTextChat']);
const PERSON_TYPES = new Set(['Default', 'Reply', 'ChatInputCommand', 'ContextMenuCommand']);
const PIECES = ['hello', 'émoji 🎉 👍🏽', 'line one\nline two', 'crlf\r\nend', '**bold** _it_ ~~s~~', '> quoted', '日本語', 'tab\there', '`code`', '  padded  ', '@everyone', 'a <b> & c'];

export function generateDiscordCase(seed: number): DiscordCase {
  const random = rng(seed);
  const chance = (p: number) => random() < p;
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T,>(list: readonly T[]): T => list[int(list.length)]!;
  const systemMessages = seed % 3 === 0 ? 'skip' : 'import';
  let seq = 1;
  const user = (i: number, name: string, discriminator: string, nickname: string | null = null, isBot = false): DUser => ({ id: snowflake(Date.UTC(2019, 0, 1) + i * 86_400_000, i), name, discriminator, nickname, isBot });
  const people = [user(0, 'ana', '0'), user(1, 'ana', '1234', 'Ana ✨'), user(2, 'Bo Berg', '0', 'Bo 🚀'), user(3, 'ana-1234', '0'), user(4, 'Zoë', '7777'), user(5, 'kim_lee', '0', 'Kim')];
  const deleted = user(10, 'Deleted User', '0000');
  const bot = user(11, 'Helper Bot', '4242', null, true);
  const hook = user(12, 'Deploy Alerts', '0000', null, true);
  const mentionOnly = user(13, 'quiet.one', '0', 'Quiet');
  const reactor = user(14, 'Reactor', '0');
  const asAuthor = (u: DUser) => ({ ...u, color: null, roles: [], avatarUrl: `https://cdn.example.invalid/avatars/${u.id}.png` });

  const guildNames = chance(0.5) ? ['Alpha Guild', 'Zeta Guild'] : ['Zeta Guild', 'Alpha Guild'];
  const guildA: Guild = { id: '1150000000000000001', name: guildNames[0]! };
  const guildB: Guild = { id: '1150000000000000002', name: guildNames[1]! };
  const dms: Guild = { id: '0', name: 'Direct Messages' };
  const channelId = (n: number) => snowflake(Date.UTC(2020, 0, 1) + n * 3_600_000, n);
  const header = (guild: Guild, n: number, type: string, name: string, category: string | null = 'Text Channels'): Header => ({
    guild, channel: { id: channelId(n), type, categoryId: category === null ? null : channelId(90 + (guild === guildA ? 0 : 1)), category, name, topic: n === 1 ? 'Everything **goes** here' : null },
  });
  const guildChannels = [
    { header: header(guildA, 1, 'GuildTextChat', 'general'), authors: people.slice(0, 5) },
    { header: header(guildA, 2, 'GuildTextChat', 'Dev Talk!'), authors: [people[1]!, people[2]!, people[5]!] },
    { header: header(guildA, 3, 'GuildNews', 'announcements'), authors: [people[0]!] },
    { header: header(guildB, 4, 'GuildTextChat', 'general'), authors: [people[3]!, people[4]!] },
    { header: header(guildB, 5, 'GuildVoiceChat', 'voice 🎤'), authors: [people[2]!, people[5]!] },
  ];
  const dmChannels = [
    { header: header(dms, 6, 'DirectTextChat', people[1]!.name, null), authors: chance(0.3) ? [people[0]!] : [people[0]!, people[1]!] },
    { header: header(dms, 7, 'DirectGroupTextChat', 'trio', null), authors: [people[0]!, people[2]!, people[4]!] },
    ...(chance(0.4) ? [{ header: header(dms, 8, 'DirectGroupTextChat', 'trio again', null), authors: [people[4]!, people[0]!, people[2]!] }] : []),
  ];
  const mentionable = [...people, mentionOnly];
  const guildChannelIds = guildChannels.map((c) => c.header.channel.id);

  const files: DFile[] = [];
  const fileBase = (h: Header) => (h.guild.id === '0' ? `Direct Messages - ${h.channel.name}` : `${h.guild.name} - ${h.channel.category} - ${h.channel.name}`);
  let start = Date.UTC(2024, 2, 1);
  for (const [ci, spec] of [...guildChannels, ...dmChannels].entries()) {
    start += 10 * 86_400_000;
    const h = spec.header;
    const direct = DIRECT_TYPES.has(h.channel.type);
    const messages: Json[] = [];
    const threads: Array<{ root: Json | undefined; id: string; time: number }> = [];
    let clock = start;
    const n = 4 + int(10);
    for (let i = 0; i < n; i++) {
      clock += 1000 * (1 + int(600));
      messages.push(...channelMessages(clock, i === 0));
      // A thread on some message (it opens at the message's time), or on one that was deleted since.
      if (!direct && chance(0.15)) threads.push({ root: messages.at(-1), id: messages.at(-1)!.id as string, time: clock });
      if (!direct && chance(0.04)) threads.push({ root: undefined, id: snowflake(clock - 500, seq++), time: clock - 500 });
    }
    const cut = ci === 1 || direct ? (chance(0.25) ? 1 + int(messages.length - 1) : undefined) : undefined;
    const kept = cut === undefined ? messages : messages.slice(0, cut);
    const partition = ci === 0 && chance(0.5) ? 3 + int(3) : undefined;
    if (partition === undefined) files.push({ name: `${fileBase(h)}.json`, header: h, messages: kept, ...(cut === undefined ? {} : { cutAt: cut }) });
    else for (let p = 0; p * partition < kept.length; p++) files.push({ name: `${fileBase(h)} [part ${p + 1}].json`, header: h, messages: kept.slice(p * partition, (p + 1) * partition) });
    for (const [t, thread] of threads.entries()) {
      const th: Header = { guild: h.guild, channel: { id: thread.id, type: pick(['GuildPublicThread', 'GuildPrivateThread']), categoryId: h.channel.id, category: h.channel.name, name: `${h.channel.name} thread ${t + 1}`, topic: null } };
      files.push({ name: `${fileBase(h)} - thread ${t + 1}.json`, header: th, messages: threadMessages(thread, spec.authors) });
    }

    /** The messages one step of the channel writes (usually one). */
    function channelMessages(time: number, first: boolean): Json[] {
      const author = first ? spec.authors[0]! : pick(spec.authors);
      const m = (type: string, content: unknown, extra: Json = {}): Json => message(snowflake(time, seq++), type, time, author, content, extra);
      if (first) return [m('Default', text())];
      const roll = random();
      const earlier = messages.filter((x) => typeof x.id === 'string');
      if (roll < 0.3) return [m('Default', text(), chance(0.2) ? { timestampEdited: stamp(time + 60_000) } : {})];
      if (roll < 0.4 && earlier.length > 0) return [m('Reply', `re: ${text()}`, { reference: { messageId: pick(earlier).id, channelId: h.channel.id, guildId: direct ? null : h.guild.id } })];
      if (roll < 0.45 && !direct && threads.length > 0) return [m('Reply', `to the thread ${text()}`, { reference: { messageId: pick(threads).id, channelId: h.channel.id, guildId: h.guild.id } })];
      if (roll < 0.47) return [m('Reply', 'answering a deleted message', { reference: { messageId: snowflake(time - 5_000_000, 4000), channelId: h.channel.id, guildId: direct ? null : h.guild.id } })];
      if (roll < 0.49 && !direct) return [m('Reply', 'answering elsewhere', { reference: { messageId: snowflake(time - 6_000_000, 4001), channelId: pick(guildChannelIds.filter((c) => c !== h.channel.id)), guildId: h.guild.id } })];
      if (roll < 0.53) return [m('Default', chance(0.5) ? 'see file' : '', { attachments: [{ id: snowflake(time, 4002), url: `https://cdn.example.invalid/attachments/${time}/report.pdf`, fileName: 'report.pdf', fileSizeBytes: 1234 }] })];
      if (roll < 0.55) return [m('Default', '', { stickers: [{ id: snowflake(time, 4003), name: 'wave', format: 'Png', sourceUrl: 'https://cdn.example.invalid/stickers/wave.png' }] })];
      if (roll < 0.58) return [m('Default', '', { embeds: [{ title: 'Release 7', url: 'https://example.invalid/r/7', description: 'what is new', fields: [] }] })];
      if (roll < 0.6) return [m('Default', '')];
      if (roll < 0.65) return [direct ? m(pick(['RecipientAdd', 'Call', 'ChannelNameChange']), 'Added someone to the group.') : m(pick(['GuildMemberJoin', 'ChannelPinnedMessage', 'ThreadCreated']), pick(['Joined the server.', 'Pinned a message.', 'Started a thread.']))];
      if (roll < 0.68 && !direct) return [message(snowflake(time, seq++), 'Default', time, pick([bot, hook, deleted]), text())];
      if (roll < 0.71) return [m('Default', longText(random))];
      if (roll < 0.74) return [pick([m('Default', 42), m('Default', 'bad time', { timestamp: 'yesterday' }), m('Default', 'bad author', { author: { ...asAuthor(author), id: 'abc' } })])];
      if (roll < 0.78) {
        const twice = m('Default', `said twice ${text()}`);
        return [twice, structuredClone(twice)];
      }
      if (roll < 0.8) {
        const first = m('Default', 'first version');
        return [first, { ...structuredClone(first), content: 'second version, same id' }];
      }
      if (roll < 0.82) return [m('ChatInputCommand', 'ran /deploy', { interaction: { id: snowflake(time, 4004), name: 'deploy', user: asAuthor(author) } })];
      if (roll < 0.86) return [m('Default', `nice ${text()}`, { reactions: [{ emoji: { id: '', name: '👍', code: 'thumbsup', isAnimated: false, imageUrl: '' }, count: 2, users: [asAuthor(author), asAuthor(reactor)] }] })];
      return [m('Default', text())];
    }
  }
  files.push({ name: 'notes.json', messages: [], text: JSON.stringify({ title: 'not an export' }) });
  // A forum post whose forum is not exported: a thread file with no parent in the export.
  const lonely: Header = { guild: guildA, channel: { id: snowflake(start + 20 * 86_400_000, 4090), type: pick(['GuildPublicThread', 'GuildPrivateThread']), categoryId: channelId(77), category: 'forum', name: 'lonely forum post', topic: null } };
  files.push({ name: `${guildA.name} - forum - lonely forum post.json`, header: lonely, messages: threadMessages({ root: undefined, id: lonely.channel.id, time: start + 20 * 86_400_000 - 1000 }, [people[0]!, people[5]!]) });

  function message(id: string, type: string, time: number, author: DUser, content: unknown, extra: Json = {}): Json {
    const mentioned = typeof content === 'string' ? [...content.matchAll(/<@!?(\d+)>/g)].map((x) => mentionable.find((u) => u.id === x[1])!) : [];
    return {
      id, type, timestamp: stamp(time), timestampEdited: null, callEndedTimestamp: null, isPinned: chance(0.05), content, author: asAuthor(author),
      attachments: [], embeds: [], stickers: [], reactions: [], mentions: [...new Set(mentioned)].map(asAuthor), inlineEmojis: [], ...extra,
    };
  }

  /** DiscordChatExporter writes local offsets; some are UTC. */
  function stamp(ms: number): string {
    if (chance(0.5)) return new Date(ms).toISOString().replace('Z', '+00:00');
    return `${new Date(ms + 3_600_000).toISOString().slice(0, -1)}+01:00`;
  }

  function text(): string {
    const token = () =>
      pick([
        () => `<@${pick(mentionable).id}>`,
        () => `<@!${pick(mentionable).id}>`,
        () => `<#${pick(guildChannelIds)}>`,
        () => `<@&${snowflake(Date.UTC(2020, 5, 1), 9)}>`,
        () => `<:party_parrot:${snowflake(Date.UTC(2021, 0, 1), 7)}> <a:dance:${snowflake(Date.UTC(2021, 0, 2), 8)}>`,
        () => `<t:${1_700_000_000 + int(1000)}:R>`,
      ])();
    return piecesText(random, token, PIECES);
  }


  /** A thread file: the starter's copy (when the root is still there), then replies after the root's time. */
  function threadMessages(thread: { root: Json | undefined; id: string; time: number }, authors: DUser[]): Json[] {
    const out: Json[] = [];
    if (thread.root !== undefined) out.push({ ...structuredClone(thread.root), type: 'ThreadStarterMessage', content: '' });
    let time = thread.time + 500;
    for (let i = 0, n = 1 + int(5); i < n; i++) {
      time += 1000 * (1 + int(400));
      const author = pick(authors);
      const roll = random();
      const id = snowflake(time, seq++);
      if (roll < 0.15) out.push(message(id, 'Default', time, author, longText(random)));
      else if (roll < 0.25 && out.length > 0) out.push(message(id, 'Reply', time, author, `in-thread ${text()}`, { reference: { messageId: out.at(-1)!.id, channelId: thread.id, guildId: guildA.id } }));
      else if (roll < 0.32) out.push(message(id, 'ChannelPinnedMessage', time, author, 'Pinned a message.'));
      else if (roll < 0.38) {
        const twice = message(id, 'Default', time, author, `thread twice ${text()}`);
        out.push(twice, structuredClone(twice));
      } else out.push(message(id, 'Default', time, author, `thread ${text()}`));
    }
    return out;
  }

  return judgeExport(seed, systemMessages, files);
}

/** The oracle: the export as the docs say chatport reads it. */
function judgeExport(seed: number, systemMessages: 'import' | 'skip', files: DFile[]): DiscordCase {
  const out: DiscordCase = {
    seed, systemMessages, messages: [], rejectedRecords: new Map(),
    files: files.map((f) => ({ name: f.name, data: f.text ?? fileText(f) })),
    counts: { users: zero(), channels: zero(), members: zero(), messages: zero(), replies: 0, orphans: 0 },
    expected: { users: new Map(), channels: [] },
  };
  // Plan: files by name (partitions in part order); a thread with its parent exported goes to that channel, after its own files, by thread id.
  const readable = files.filter((f) => f.header !== undefined).sort((a, b) => byPartition(a.name, b.name));
  const own = new Set(readable.filter((f) => !THREAD_TYPES.has(f.header!.channel.type)).map((f) => f.header!.channel.id));
  const plan = new Map<string, DFile[]>();
  const threadFiles: DFile[] = [];
  for (const f of readable) {
    const { channel } = f.header!;
    // docs: a private thread is a PRIVATE channel of its own, its parent exported or not.
    if (THREAD_TYPES.has(channel.type) && channel.type !== 'GuildPrivateThread' && channel.categoryId !== null && own.has(channel.categoryId)) threadFiles.push(f);
    else plan.set(channel.id, [...(plan.get(channel.id) ?? []), f]);
  }
  threadFiles.sort((a, b) => compareSnowflakes(a.header!.channel.id, b.header!.channel.id) || byPartition(a.name, b.name));
  for (const t of threadFiles) plan.get(t.header!.channel.categoryId!)!.push(t);
  const threadIds = new Set(threadFiles.map((t) => t.header!.channel.id));
  const workspace = readable.find((f) => f.header!.guild.id !== '0')?.header!.guild.id ?? 'direct-messages';

  // Pass 1: users are the authors, mentioned and reacting users, in first-seen order; members the authors of a channel and its threads.
  const users = new Map<string, DUser>();
  const latestOf = new Map<string, string>();
  const authorsOf = new Map<string, string[]>();
  for (const [id, list] of plan) {
    const authors: string[] = [];
    for (const f of list)
      for (const m of f.messages) {
        const author = m.author as DUser;
        if (!/^\d{1,20}$/.test(author.id)) continue;
        // docs: each user as the latest message naming them has them (a snowflake id: by time), in first-seen order.
        const mid = typeof m.id === 'string' && /^\d{1,20}$/.test(m.id) ? m.id : undefined;
        for (const u of [author, ...(m.mentions as DUser[]), ...(m.reactions as Array<{ users: DUser[] }>).flatMap((r) => r.users)]) {
          const seen = latestOf.get(u.id);
          if (seen !== undefined && (mid === undefined || compareSnowflakes(mid, seen) < 0)) continue;
          users.set(u.id, u);
          latestOf.set(u.id, mid ?? seen ?? '0');
        }
        if (!authors.includes(author.id)) authors.push(author.id);
      }
    authorsOf.set(id, authors);
  }
  const userNames = nameAllocator();
  const username = new Map<string, string>();
  for (const u of users.values()) {
    const handle = u.name === 'Deleted User' ? `deleted-user-${u.id}` : u.discriminator !== '0' && u.discriminator !== '0000' ? `${u.name}-${u.discriminator}` : u.name;
    username.set(u.id, userNames(validName(handle, `user-${u.id}`)));
    out.expected.users.set(username.get(u.id)!, u.nickname ?? u.name);
  }
  out.counts.users = { ...zero(), read: users.size, imported: users.size };

  // Channels: a DM of 2 to 10 people is DIRECT unless an earlier one has the same people; names valid and unique.
  const channelNames = nameAllocator();
  const directSets = new Set<string>();
  const channelName = new Map<string, string>();
  for (const [id, list] of plan) {
    const { channel } = list[0]!.header!;
    const members = authorsOf.get(id)!;
    const set = [...members].sort().join(',');
    const dm = DIRECT_TYPES.has(channel.type);
    const type = dm && members.length >= 2 && members.length <= 10 && !directSets.has(set) ? 'DIRECT' : dm || channel.type === 'GuildPrivateThread' ? 'PRIVATE' : 'PUBLIC';
    if (type === 'DIRECT') directSets.add(set);
    else channelName.set(id, channelNames(validName(channel.name, dm ? `group-${id}` : `channel-${id}`)));
    if (type !== 'DIRECT') out.counts.members.read += members.length;
    out.expected.channels.push({ key: `${workspace}/${id}`, type, ...(type === 'DIRECT' ? {} : { name: channelName.get(id)! }), members: members.map((m) => username.get(m)!).sort(), messages: [], late: [] });
  }
  out.counts.channels = { ...zero(), read: plan.size, imported: plan.size };
  out.counts.members.imported = out.counts.members.read;

  const names = { user: (id: string) => username.get(id), channel: (id: string) => channelName.get(id) ?? readable.find((f) => f.header!.channel.id === id)?.header!.channel.name };
  for (const f of files) if (f.header === undefined) out.messages.push({ at: `${f.name}#0`, raw: f.text!, fate: { fate: 'rejected', field: '(file)' }, parts: [] });
  for (const [id, list] of plan) judgeChannel(id, list, out.expected.channels.find((c) => c.key === `${workspace}/${id}`)!);
  for (const m of out.messages) count(out, m);
  return out;

  /** Pass 2 for one channel: its files in plan order, inline replies into a thread with a file held and taken in by time. */
  function judgeChannel(id: string, list: DFile[], channel: Expected['channels'][number]) {
    const rootOf = new Map<string, string>();
    const held = new Map<string, MessageJudged[]>();
    const order: Judged[] = [];
    const keys = new Map<string, string>();
    // docs: under systemMessages: skip, a system message that roots a thread, or that an inline reply of its channel answers, is kept.
    const answered = new Set<string>();
    const systemIds = new Set<string>();
    for (const f of list)
      for (const raw of f.header!.channel.id === id ? f.messages : []) {
        const reference = raw.reference as { messageId?: string; channelId?: string | null } | undefined;
        if (typeof raw.id !== 'string' || typeof raw.type !== 'string') continue;
        if (raw.type === 'Reply' && reference?.messageId !== undefined && (reference.channelId ?? id) === id && systemIds.has(reference.messageId)) answered.add(reference.messageId);
        else if (!PERSON_TYPES.has(raw.type) && raw.type !== 'ThreadStarterMessage') systemIds.add(raw.id);
      }
    // docs: a thread whose id no record of its channel has, and no ThreadCreated note announces, lost its
    // starter: a root in its place, at the starter's (snowflake) time, among the channel's messages.
    const ownRecords = list.filter((f) => f.header!.channel.id === id).flatMap((f) => f.messages);
    const recorded = new Set(ownRecords.map((raw) => raw.id));
    const announced = new Set(ownRecords.filter((raw) => raw.type === 'ThreadCreated').map((raw) => (raw.reference as { channelId?: string } | undefined)?.channelId));
    const lost: MessageJudged[] = [];
    // docs: not in a channel with a record that cannot be read, nor in an export with a file whose header cannot be.
    const damaged = files.some((f) => f.header === undefined) || list.some((f) => f.header!.channel.id === id && f.cutAt !== undefined);
    for (const f of list) {
      const { id: tid, name } = f.header!.channel;
      if (damaged || tid === id || recorded.has(tid) || announced.has(tid) || lost.some((l) => l.id === tid)) continue;
      const time = new Date(Number((BigInt(tid) >> 22n) + 1_420_070_400_000n)).toISOString();
      const parts: PlatformMessage[] = [{ type: 'SYSTEM_TEXT', body: `Original message was deleted (thread: ${name})`, source: {} }];
      lost.push({ kind: 'message', id: tid, root: undefined, time, file: f.name, index: -1, parts, m: { at: `${f.name}#-1`, raw: '', fate: { fate: 'channel' }, parts } });
    }
    for (const f of list) {
      const threadId = f.header!.channel.id === id ? undefined : f.header!.channel.id;
      if (threadId !== undefined) order.push(...lost.splice(0));
      for (const [index, raw] of f.messages.entries()) {
        const j = judge(raw, `${f.name}#${index}`, threadId);
        if (threadId === undefined && j.kind === 'message') while (lost.length > 0 && lost[0]!.time < j.time) order.push(lost.shift()!);
        if (threadId !== undefined && j.kind === 'message') {
          const waiting = held.get(j.root!) ?? [];
          while (waiting.length > 0 && waiting[0]!.time < j.time) order.push(waiting.shift()!);
        }
        if (threadId === undefined && j.kind === 'message' && j.root !== undefined && threadIds.has(j.root)) held.set(j.root, [...(held.get(j.root) ?? []), j]);
        else order.push(j);
      }
      if (f.cutAt !== undefined) order.push({ kind: 'done', m: { at: `${f.name}#${f.cutAt}`, raw: '', fate: { fate: 'rejected', field: '(file)' }, parts: [] }, time: '' });
    }
    order.push(...lost.splice(0));
    order.push(...[...held.values()].flat().sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.index - b.index)));
    // Roots are looked for once the imports are done: any message of the channel imported in its place.
    const placed = new Map<string, Expected['channels'][number]['messages'][number]>();
    const threads = new Map<string, Array<{ time: string; parts: ExpectedMessage[] }>>();
    for (const j of order) {
      if (j.kind === 'done') continue;
      const key = `${id}/${j.id}`;
      const content = JSON.stringify([j.parts, j.root ?? null]);
      const seen = keys.get(key);
      if (seen !== undefined) j.m.fate = seen === content ? { fate: 'duplicate' } : { fate: 'rejected', field: '' };
      else if (j.root === undefined) {
        keys.set(key, content);
        const first = { message: strip(j.m.parts[0]!), replies: [] as ExpectedMessage[] };
        if (!placed.has(j.id)) placed.set(j.id, first);
        channel.messages.push(first, ...j.m.parts.slice(1).map((p) => ({ message: strip(p), replies: [] })));
      } else keys.set(key, content);
    }
    for (const j of order) {
      if (j.kind === 'done' || j.root === undefined || j.m.fate.fate !== 'channel') continue;
      const root = placed.get(j.root);
      if (root === undefined) {
        j.m.fate = { fate: 'channel', orphan: true, late: true };
        channel.late.push(...j.m.parts.map(strip));
      } else {
        j.m.fate = { fate: 'reply', rootAt: j.root };
        threads.set(j.root, [...(threads.get(j.root) ?? []), { time: j.time, parts: j.m.parts.map(strip) }]);
      }
    }
    // docs: "the thread reads in time order whichever file each of its messages came from".
    for (const [root, replies] of threads) placed.get(root)!.replies.push(...replies.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0)).flatMap((r) => r.parts));
    out.messages.push(...order.map((j) => j.m));

    function judge(raw: Json, at: string, threadId: string | undefined): Judged {
      const [file, index] = [at.slice(0, at.lastIndexOf('#')), Number(at.slice(at.lastIndexOf('#') + 1))];
      const done = (fate: Fate): Judged => ({ kind: 'done', m: { at, raw, fate, parts: [] }, time: '' });
      const author = raw.author as DUser;
      if (typeof raw.content !== 'string') return done({ fate: 'rejected', field: 'content' });
      if (!/^\d{1,20}$/.test(author.id)) return done({ fate: 'rejected', field: 'author.id' });
      if (Number.isNaN(Date.parse(raw.timestamp as string))) return done({ fate: 'rejected', field: 'timestamp' });
      if (raw.type === 'ThreadStarterMessage') return done({ fate: 'skipped', reason: /^thread starter/ });
      // Inline replies join the thread of the chain they answer; a thread's messages are replies to its root.
      const mid = raw.id as string;
      const reference = raw.reference as { messageId: string; channelId: string } | undefined;
      let root: string | undefined;
      if (threadId !== undefined) root = rootOf.get(threadId) ?? threadId;
      else if (raw.type === 'Reply' && reference !== undefined && reference.channelId === id) root = rootOf.get(reference.messageId) ?? reference.messageId;
      rootOf.set(mid, root ?? mid);
      const system = !PERSON_TYPES.has(raw.type as string);
      if (system && systemMessages === 'skip' && !answered.has(mid) && !(threadId === undefined && threadIds.has(mid))) return done({ fate: 'skipped', reason: new RegExp(`^system message: ${raw.type as string}$`) });
      const files = (raw.attachments as Json[]).map((a) => `[file: ${a.fileName as string}] ${a.url as string}`);
      const stickers = (raw.stickers as Json[]).map((s) => `[sticker: ${s.name as string}]`);
      const body = [toText(raw.content, names), ...files, ...stickers].filter((l) => l !== '').join('\n') || embedsText(raw.embeds as Json[]) || '(empty message)';
      const user = system ? undefined : username.get(author.id)!;
      const parts = splitParts(body).map((part): PlatformMessage => ({ type: system ? 'SYSTEM_TEXT' : 'TEXT', ...(user === undefined ? {} : { user }), body: part, source: {} }));
      return { kind: 'message', id: mid, root, time: new Date(Date.parse(raw.timestamp as string)).toISOString(), file, index, parts, m: { at, raw, fate: { fate: 'channel' }, parts } };
    }
  }
}

type MessageJudged = { kind: 'message'; id: string; root: string | undefined; time: string; file: string; index: number; parts: PlatformMessage[]; m: SourceMessage };
type Judged = { kind: 'done'; m: SourceMessage; time: string } | MessageJudged;

const zero = () => ({ read: 0, imported: 0, rejected: 0, skipped: 0, duplicates: 0 });

function count(c: DiscordCase, m: SourceMessage) {
  const n = c.counts.messages;
  const size = Math.max(1, m.parts.length);
  n.read += size;
  if (m.fate.fate === 'rejected') n.rejected += size;
  else if (m.fate.fate === 'skipped') n.skipped++;
  else if (m.fate.fate === 'duplicate') n.duplicates += size;
  else {
    n.imported += size;
    if (m.fate.fate === 'reply') c.counts.replies += size;
    else if (m.fate.orphan) c.counts.orphans += size;
  }
}

/** docs "Text": mentions by platform name, channels by name, roles by id, custom emoji by name, timestamps in ISO 8601 UTC. */
function toText(content: string, names: { user(id: string): string | undefined; channel(id: string): string | undefined }): string {
  return content.replace(/<(@!?|#|@&|a?:[\w~-]+:|t:)(\d+)(?::[tTdDfFR])?>/g, (_w, kind: string, id: string) => {
    if (kind === '@' || kind === '@!') return `@${names.user(id)!}`;
    if (kind === '#') return `#${names.channel(id)!}`;
    if (kind === '@&') return `@role:${id}`;
    if (kind === 't:') return new Date(Number(id) * 1000).toISOString();
    return `:${kind.split(':')[1]!}:`;
  });
}

/** docs: a message with no text shows its embeds' titles and descriptions (and links). */
const embedsText = (embeds: Json[]) =>
  embeds
    .map((e) => [e.title, e.description, e.url].filter((x) => typeof x === 'string' && x !== '').join('\n'))
    .filter((t) => t !== '')
    .join('\n');

const compareSnowflakes = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/** docs: `name [part 2].json` read in part order, right after `name.json`'s place. */
const byPartition = (a: string, b: string) => (partKey(a) < partKey(b) ? -1 : partKey(a) > partKey(b) ? 1 : 0);
const partKey = (name: string) => name.replace(/ \[part (\d+)\]\.json$/, (_m, n: string) => `.json\u0000${n.padStart(9, '0')}`);

/** A file as DiscordChatExporter writes it (one message a line), cut inside a message when the case says so. */
function fileText(f: DFile): string {
  const { guild, channel } = f.header!;
  const head = JSON.stringify({ guild, channel, dateRange: { after: null, before: null }, exportedAt: '2024-05-06T07:08:09.123+00:00' }, null, 2);
  const lines = f.messages.map((m) => `    ${JSON.stringify(m)}`);
  if (f.cutAt !== undefined) return `${head.slice(0, -2)},\n  "messages": [\n${[...lines, '    {"id": "12'].join(',\n')}`;
  return `${head.slice(0, -2)},\n  "messages": [\n${lines.join(',\n')}\n  ],\n  "messageCount": ${f.messages.length}\n}\n`;
}

/** Writes the case as a folder `dir/export` and its pipeline; returns both. */
export async function writeDiscordCase(dir: string, c: DiscordCase, name: string, writePipeline: (dir: string, yaml: string) => Promise<{ path: string; config: PipelineConfig }>) {
  const folder = join(dir, 'export');
  await mkdir(folder, { recursive: true });
  for (const f of c.files) await writeFile(join(folder, f.name), f.data);
  const pipeline = await writePipeline(dir, `name: ${name}\ndiscord:\n  export: ${folder}\n  systemMessages: ${c.systemMessages}\noptions: { chunkRecords: 7, concurrency: 3 }\n`);
  return { folder, ...pipeline };
}

export const discordCaseDir = (root: string, seed: number) => join(root, `discord-seed-${seed}`);
