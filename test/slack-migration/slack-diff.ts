/**
 * A seeded Slack export for the migration's differential tests, and an oracle written from the docs alone
 * (docs/slack-migration.md, docs/threads.md, docs/accounting.md, /work/shared/docs/slack-export.md). The
 * generator writes a zip with what real exports hold: bots, deleted users, authors users.json lacks,
 * channels/groups/dms/mpims, day files across days, thread roots and replies (in later day files, with a
 * missing or skipped root, broadcast), system and edit events, files, reactions, mrkdwn, repeated ts,
 * emoji and CR/LF, bodies over the limit, empty and malformed messages, a folder no list names and a day
 * file that is not JSON. The oracle says per source record what becomes of it and what the platform holds.
 */
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { expect } from 'vitest';
import type { ChatportClient } from '../../src/api/index.js';
import type { PipelineConfig } from '../../src/config/index.js';
import { readStageRecords } from '../../src/pipeline/import/read-stage.js';
import type { FaultRule } from '../../src/sandbox/options.js';
import type { JournalEvent } from '../../src/pipeline/state/events.js';
import { chatportProcess, countEvents, journalEvents } from '../helpers/cli-process.js';
import { rng } from '../helpers/rng.js';
import { all } from '../import/support.js';
import { ndjson } from '../import/messy-source.js';
import { writeRawZip } from '../slack/helpers/zip-writer.js';
import { readPlatform, type Json, type PlatformMessage, type PlatformState } from './support.js';

type Kind = 'channel' | 'group' | 'dm' | 'mpim';

/** What becomes of one source message (or one record of users.json / a conversation list). */
export type Fate =
  | { fate: 'channel'; late?: boolean; orphan?: boolean }
  | { fate: 'reply'; rootAt: string }
  | { fate: 'skipped'; reason: RegExp }
  | { fate: 'rejected'; field: string }
  | { fate: 'duplicate' };

export interface SourceMessage {
  /** `folder/day.json#index`: its place in the export. */
  at: string;
  raw: Json | string;
  fate: Fate;
  /** For an imported one: what the platform holds, one entry per part. */
  parts: PlatformMessage[];
  /** A reply also sent to the channel (thread_broadcast) sent into its thread: its channel copy, one record per part. */
  copies?: number;
}

export interface Expected {
  users: Map<string, string | undefined>;
  channels: Array<{ key: string; type: string; name?: string; members: string[]; messages: Array<{ message: ExpectedMessage; replies: ExpectedMessage[] }>; late: ExpectedMessage[] }>;
}

export type ExpectedMessage = Omit<PlatformMessage, 'source'>;

/** What the shared checks below need of a case: its records' fates, counts and what the platform holds. */
export interface OracleCase {
  /** Every message record, in stage order. */
  messages: SourceMessage[];
  /** Rejected records of the users and channels stages: `file#index` → field. */
  rejectedRecords: Map<string, string>;
  counts: Record<'users' | 'channels' | 'members' | 'messages', { read: number; imported: number; rejected: number; skipped: number; duplicates: number }> & {
    replies: number;
    orphans: number;
  };
  expected: Expected;
}

export interface SlackCase extends OracleCase {
  seed: number;
  team: string;
  systemMessages: 'import' | 'skip';
  entries: Array<{ name: string; data: string }>;
}

const LIMIT = 40_000;

/** docs/slack-migration.md "Names": NFC, lower case, other characters `-`, collapsed, trimmed of `-`/`.`, cut to 128. */
export function validName(raw: string | undefined, fallback: string): string {
  const name = (raw ?? '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}._-]/gu, '-')
    .replace(/-+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 128);
  return name === '' ? fallback : name;
}

/** First come keeps the name, later ones get -2, -3 (case-insensitive). */
export function nameAllocator() {
  const taken = new Set<string>();
  return (name: string) => {
    let candidate = name;
    for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${name}-${n}`;
    taken.add(candidate.toLowerCase());
    return candidate;
  };
}

/** docs "Long messages": cut at the last newline, else space, in the final quarter of each window, else at the limit. */
export function splitParts(body: string): string[] {
  const parts: string[] = [];
  let rest = body;
  while (rest.length > LIMIT) {
    const window = rest.slice(0, LIMIT);
    let cut = window.lastIndexOf('\n');
    if (cut < LIMIT * 0.75) cut = window.lastIndexOf(' ');
    if (cut >= LIMIT * 0.75) cut += 1;
    else cut = isHighSurrogate(rest.charCodeAt(LIMIT - 1)) ? LIMIT - 1 : LIMIT;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  return [...parts, rest];
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

const ENTITY: Record<string, string> = { amp: '&', lt: '<', gt: '>' };
const decode = (t: string) => t.replace(/&(amp|lt|gt);/g, (_m, e: string) => ENTITY[e]!);

/** docs "Text": mrkdwn to plain text. */
function plainText(text: string, user: (id: string) => string, channel: (id: string) => string): string {
  return text.replace(/<([^<>]*)>|&(amp|lt|gt);/g, (_m, token: string | undefined, entity: string | undefined) => {
    if (entity !== undefined) return ENTITY[entity]!;
    const [target, label] = token!.split('|') as [string, string | undefined];
    if (target.startsWith('@')) return `@${user(target.slice(1))}`;
    if (target.startsWith('#')) return `#${channel(target.slice(1))}`;
    if (target.startsWith('!')) return `@${target.slice(1)}`;
    const url = decode(target);
    if (url.startsWith('mailto:')) return url.slice(7);
    return label === undefined ? url : `${decode(label)} (${url})`;
  });
}

const CONTENT = new Set([undefined, 'me_message', 'file_share', 'file_comment', 'thread_broadcast', 'bot_message']);
const EDIT_EVENTS = new Set(['message_changed', 'message_deleted']);
const PIECES = ['hello', 'émoji 🎉 :tada:', 'line one\nline two', 'crlf\r\nend', '*bold* _it_ ~s~', '> quoted', '日本語', 'tab\there', 'a &amp; b &lt;3 &gt;', '  padded  ', '<!here>', '<!channel>', '<https://example.com|a link>', '<https://example.com/x?a=1&amp;b=2>', '<mailto:bo@example.com>'];

interface UserSpec {
  id: string;
  username: string;
  displayName?: string;
}

export function generateSlackCase(seed: number): SlackCase {
  const random = rng(seed);
  const chance = (p: number) => random() < p;
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T,>(list: readonly T[]): T => list[int(list.length)]!;
  const team = `T${seed}`;
  const systemMessages = seed % 3 === 0 ? 'skip' : 'import';
  const rejectedRecords = new Map<string, string>();
  const names = nameAllocator();

  // users.json: people (a guest, a deleted one, odd handles, one handle twice in other case), a bot user, broken records.
  const HANDLES = ['ana', 'Bo.Berg', 'Zoë Tavmir!', 'same.handle', 'Same.Handle', '***', 'kim_lee', 'Ødegård', 'x--y..'];
  const users: Json[] = [];
  const people: UserSpec[] = [];
  const count = 4 + int(4);
  for (let i = 0; i < count; i++) {
    const id = `U${seed}P${i}`;
    const handle = i < 2 ? HANDLES[i]! : pick(HANDLES);
    const profile: Json = {};
    const roll = random();
    if (roll < 0.4) profile.display_name = `Display ${i} ✨`;
    else if (roll < 0.7) profile.real_name = `Real Name ${i}`;
    users.push({ id, team_id: team, name: handle, deleted: chance(0.15), is_restricted: chance(0.15), profile });
    people.push({ id, username: '', displayName: (profile.display_name ?? profile.real_name ?? handle) as string });
  }
  users.push({ id: `U${seed}BOT`, team_id: team, name: 'buildbot', is_bot: true, profile: { bot_id: `B${seed}OWN`, real_name: 'Build Bot' } });
  people.push({ id: `U${seed}BOT`, username: '', displayName: 'Build Bot' });
  if (chance(0.5)) {
    rejectedRecords.set(`users.json#${users.length}`, 'deleted');
    users.push({ id: `U${seed}BAD`, team_id: team, name: 'broken', deleted: 'yes' });
  }
  if (chance(0.4)) {
    rejectedRecords.set(`users.json#${users.length}`, 'id');
    users.push({ id: people[0]!.id, team_id: team, name: 'second-of-that-id' });
  }
  for (const p of people) p.username = names(validName((users.find((u) => u.id === p.id)!.name as string), `user-${p.id.toLowerCase()}`));

  // Authors users.json lacks: named by their messages' user_profile (one takes a handle already used), bots, an integration, Slackbot.
  const ghost = { id: `U${seed}GHOST`, profile: { name: 'ghost.one', real_name: 'Ghost One' } };
  const twin = { id: `U${seed}TWIN`, profile: { name: people[0]!.username } };
  const memberOnly = `U${seed}MEMBER`;
  const orphanBot = { id: `B${seed}ORPHAN`, name: 'Deploy Bot' };
  const hook = 'old-hook';
  // A placeholder is named by its messages' user_profile; one that only a channel's members list names is `unknown-<id>`.
  const ghostPosts = chance(0.7);
  const placeholderNames = new Map<string, string>([
    [ghost.id, ghostPosts ? 'ghost.one' : `unknown-${ghost.id.toLowerCase()}`],
    [twin.id, twin.profile.name],
    [memberOnly, `unknown-${memberOnly.toLowerCase()}`],
    [orphanBot.id, 'deploy-bot'],
    [`integration:${hook}`, hook],
    ['USLACKBOT', 'slackbot'],
  ]);

  // Conversations: folders by name (DMs by id); an mpim repeating another's members and a 12-person one become PRIVATE.
  const humans = people.slice(0, -1).map((p) => p.id);
  const convs: Array<{ kind: Kind; record: Json; type: string; folder: string | undefined }> = [];
  const addConv = (kind: Kind, record: Json, type: string, folder: string | undefined = kind === 'dm' ? (record.id as string) : (record.name as string)) =>
    convs.push({ kind, record, type, folder });
  addConv('channel', { id: `C${seed}1`, name: 'general', is_general: true, creator: humans[0], members: [...humans, `U${seed}BOT`, memberOnly, ghost.id] }, 'PUBLIC');
  addConv('channel', { id: `C${seed}2`, name: 'Dev Talk!', creator: humans[1], members: [humans[1]!, humans[0]!, humans[1]!] }, 'PUBLIC');
  if (chance(0.5)) addConv('channel', { id: `C${seed}3`, name: 'dev-talk', members: [humans[0]!], is_archived: true }, 'PUBLIC');
  addConv('channel', { id: `C${seed}4`, name: 'no-folder', members: [humans[0]!] }, 'PUBLIC', undefined);
  addConv('group', { id: `G${seed}1`, name: 'secret-plans', creator: humans[0], members: humans.slice(0, 3) }, 'PRIVATE');
  const trio = humans.slice(0, 3);
  addConv('mpim', { id: `G${seed}M1`, name: 'mpdm-trio-1', members: trio }, 'DIRECT');
  if (chance(0.5)) addConv('mpim', { id: `G${seed}M2`, name: 'mpdm-trio-2', members: [...trio].reverse() }, 'PRIVATE');
  if (chance(0.3)) addConv('mpim', { id: `G${seed}M3`, name: 'mpdm-crowd-1', members: [...humans, ...Array.from({ length: 12 - humans.length }, (_, i) => `U${seed}CROWD${i}`)] }, 'PRIVATE');
  addConv('dm', { id: `D${seed}1`, members: [humans[0], humans[1]] }, 'DIRECT');
  // Placeholders take their names after users.json, sorted by id (docs "Names"); one without a name is `unknown-<id>`.
  for (const c of convs) for (const id of c.record.members as string[]) if (!people.some((p) => p.id === id) && !placeholderNames.has(id)) placeholderNames.set(id, `unknown-${id.toLowerCase()}`);
  const usernames = new Map(people.map((p) => [p.id, p.username]));
  for (const id of [...placeholderNames.keys()].sort()) usernames.set(id, names(validName(placeholderNames.get(id), id)));
  const userName = (id: string) => usernames.get(id)!;
  const channelNames = nameAllocator();
  const platformName = new Map<string, string>();
  for (const kind of ['channel', 'group', 'mpim', 'dm'] as const)
    for (const c of convs) if (c.kind === kind && c.type !== 'DIRECT') platformName.set(c.record.id as string, channelNames(validName(c.record.name as string, `channel-${(c.record.id as string).toLowerCase()}`)));

  const entries: Array<{ name: string; data: string }> = [];
  const messages: SourceMessage[] = [];
  const text = () => {
    const mention = () => (chance(0.5) ? `<@${pick([...humans, ghost.id])}>` : `<#C${seed}1|general>`);
    let t = chance(0.3) ? mention() : pick(PIECES);
    while (chance(0.45)) t += ` ${chance(0.3) ? mention() : pick(PIECES)}`;
    return t;
  };
  const bodyOf = (raw: Json) => {
    const converted = plainText((raw.text as string | undefined) ?? '', userName, (id) => platformName.get(id)!);
    const attachments = ((raw.attachments as Json[] | undefined) ?? []).map((a) => a.fallback as string);
    const files = ((raw.files as Json[] | undefined) ?? []).map((f) =>
      f.mode === 'tombstone' ? `[file deleted: ${f.title}]` : f.mode === 'hidden_by_limit' ? `[file hidden by Slack's plan limits: ${f.title}]` : `[file: ${f.title}] ${(f.url_private as string).replace(/\?t=.*$/, '')}`,
    );
    return [converted.trim() === '' ? attachments.join('\n') : converted, ...files].filter((l) => l.trim() !== '').join('\n');
  };

  const counts: SlackCase['counts'] = {
    users: { read: 0, imported: 0, rejected: rejectedRecords.size, skipped: 0, duplicates: 0 },
    channels: { read: convs.length, imported: convs.length, rejected: 0, skipped: 0, duplicates: 0 },
    members: { read: 0, imported: 0, rejected: 0, skipped: 0, duplicates: 0 },
    messages: { read: 0, imported: 0, rejected: 0, skipped: 0, duplicates: 0 },
    replies: 0,
    orphans: 0,
  };
  const expected: Expected = { users: new Map(), channels: [] };

  const start = Date.UTC(2024, 2, 1) / 1000;
  for (const conv of convs) {
    const members = [...new Set(conv.record.members as string[])];
    const channel: Expected['channels'][number] = {
      key: `${team}/${conv.record.id as string}`,
      type: conv.type,
      ...(conv.type === 'DIRECT' ? {} : { name: platformName.get(conv.record.id as string)! }),
      members: members.map(userName).sort(),
      messages: [],
      late: [],
    };
    expected.channels.push(channel);
    if (conv.type !== 'DIRECT') counts.members.read += members.length;
    if (conv.folder === undefined) continue;
    const authors = members.filter((m) => humans.includes(m));
    // Roots by ts: the ts of every message noted as a root (even skipped), and where each imported root is.
    const roots = new Map<string, { imported?: Expected['channels'][number]['messages'][number] }>();
    const rootTs: string[] = [];
    const days = 2 + int(3);
    for (let d = 0; d < days; d++) {
      const date = new Date((start + d * 86_400) * 1000).toISOString().slice(0, 10);
      const file = `${conv.folder}/${date}.json`;
      const day: Json[] = [];
      const n = 1 + int(7);
      let clock = start + d * 86_400 + 10;
      for (let i = 0; i < n; i++) {
        clock += 1 + int(500);
        const ts = `${clock}.${String(int(1e6)).padStart(6, '0')}`;
        day.push(...(ghostPosts && d === 0 && i === 0 && conv.record.id === `C${seed}1` ? ghostPair(ts) : messageRecords(ts)));
      }
      // A day file as Slack writes it is in ts order; shuffle a little, chatport sorts.
      if (day.length > 1 && chance(0.3)) day.push(day.shift()!);
      entries.push({ name: file, data: JSON.stringify(day) });
      judgeDay(file, day);
    }
    if (chance(0.15)) {
      entries.push({ name: `${conv.folder}/2024-02-01.json`, data: '[{"type": "message", "text": "cut off' });
      // The unreadable day sorts first; it is one rejected record.
      messages.splice(messages.length - countOf(conv.folder), 0, { at: `${conv.folder}/2024-02-01.json#0`, raw: 'cut off', fate: { fate: 'rejected', field: '' }, parts: [] });
      counts.messages.read++;
      counts.messages.rejected++;
    }

    function countOf(folder: string) {
      return messages.filter((m) => m.at.startsWith(`${folder}/`)).length;
    }

    /** The records one step of the conversation writes (usually one message). */
    function messageRecords(ts: string): Json[] {
      const author = pick(authors);
      const roll = random();
      if (roll < 0.25) return [{ type: 'message', ts, user: author, text: text(), ...(chance(0.2) ? { edited: { user: author, ts } } : {}), ...(chance(0.2) ? { reactions: [{ name: 'thumbsup::skin-tone-3', users: [author], count: 1 }] } : {}) }];
      if (roll < 0.35) {
        rootTs.push(ts);
        return [{ type: 'message', ts, user: author, text: `root ${text()}`, thread_ts: ts, reply_count: 1 }];
      }
      if (roll < 0.5 && rootTs.length > 0) {
        const root = pick(rootTs);
        return [{ type: 'message', ts, user: author, text: `reply ${text()}`, thread_ts: root, parent_user_id: author, ...(chance(0.2) ? { subtype: 'thread_broadcast', root: {} } : {}) }];
      }
      if (roll < 0.54) return [{ type: 'message', ts, user: author, text: 'reply to a root not in the export', thread_ts: `${Number(ts.split('.')[0]) - 5000}.000001` }];
      if (roll < 0.58) return [{ type: 'message', subtype: 'channel_join', ts, user: author, text: `<@${author}> has joined the channel`, ...(chance(0.3) ? rootOf(ts) : {}) }];
      if (roll < 0.62) return [pick([
        { type: 'message', subtype: 'bot_message', ts, bot_id: `B${seed}OWN`, text: 'build passed' },
        { type: 'message', subtype: 'bot_message', ts, bot_id: orphanBot.id, bot_profile: { name: orphanBot.name }, text: 'deployed' },
        { type: 'message', subtype: 'bot_message', ts, username: hook, text: 'webhook says hi' },
      ])];
      if (roll < 0.65) return [{ type: 'message', subtype: 'file_share', ts, user: author, text: chance(0.5) ? 'see file' : '', files: [{ id: 'F1', title: 'report.pdf', url_private: 'https://files.slack.com/files-pri/T1-F1/report.pdf?t=xoxe-123', mode: pick(['hosted', 'tombstone', 'hidden_by_limit']) }] }];
      if (roll < 0.68) return [{ type: 'message', subtype: 'tombstone', ts, user: 'USLACKBOT', text: 'This message was deleted.', ...rootOf(ts) }];
      if (roll < 0.71) return [{ type: 'message', subtype: pick(['message_changed', 'message_deleted']), ts, hidden: true, message: { type: 'message', ts, text: 'changed' } }];
      if (roll < 0.74 && ghostPosts) return ghostPair(ts);
      if (roll < 0.77) return [{ type: 'message', ts, user: author, text: longText(), ...(chance(0.5) ? rootOf(ts) : {}) }];
      if (roll < 0.8) return [{ type: 'message', ts, user: author, text: '', ...(chance(0.5) ? rootOf(ts) : {}) }];
      if (roll < 0.82) return [{ type: 'message', ts, user: author, text: '', attachments: [{ fallback: 'link preview: example.com' }] }];
      if (roll < 0.84) return [{ type: 'message', ts, text: 'from nowhere' }];
      if (roll < 0.87) return [pick([{ type: 'message', ts: 'yesterday', user: author, text: 'bad ts' }, { type: 'message', user: author, text: 'no ts' }, { type: 'message', ts, user: author, text: 42 }])];
      if (roll < 0.89) return [{ type: 'reminder', ts, user: author, text: 'not a message' }];
      return [{ type: 'message', ts, user: author, text: text() }];
    }

    /** Two messages of one ts (a broken export), by authors users.json lacks. */
    function ghostPair(ts: string): Json[] {
      return [{ type: 'message', ts, user: ghost.id, user_profile: ghost.profile, text: `ghost ${text()}` }, { type: 'message', ts, user: twin.id, user_profile: twin.profile, text: 'same ts, other author' }];
    }

    function rootOf(ts: string): Json {
      rootTs.push(ts);
      return { thread_ts: ts, reply_count: 1 };
    }

    function longText() {
      const words: string[] = [];
      const size = LIMIT + 1 + int(LIMIT * 1.2);
      for (let length = 0; length < size; ) {
        const word = chance(0.002) ? 'x'.repeat(12_000) : pick(['lorem', 'ipsum', '🎉', 'dolor', 'sit']);
        words.push(word, chance(0.01) ? '\n' : ' ');
        length += word.length + 1;
      }
      return words.join('');
    }

    /** The oracle for one day file: messages in ts order (stable), each judged by the docs' rules. */
    function judgeDay(file: string, day: Json[]) {
      const order = day.map((raw, index) => ({ raw, index }));
      const valid = order.filter(({ raw }) => typeof raw.ts === 'string' && /^\d{1,12}(\.\d{1,9})?$/.test(raw.ts) && (raw.text === undefined || typeof raw.text === 'string'));
      for (const { raw, index } of order) if (!valid.some((v) => v.index === index)) record({ at: `${file}#${index}`, raw, fate: { fate: 'rejected', field: typeof raw.ts === 'string' && /^\d/.test(raw.ts) ? 'text' : 'ts' }, parts: [] });
      valid.sort((a, b) => (a.raw.ts === b.raw.ts ? a.index - b.index : (a.raw.ts as string) < (b.raw.ts as string) ? -1 : 1));
      let lastTs: string | undefined;
      let occurrence = 1;
      for (const { raw, index } of valid) {
        const ts = raw.ts as string;
        occurrence = ts === lastTs ? occurrence + 1 : 1;
        lastTs = ts;
        const isRoot = raw.thread_ts === ts;
        if (isRoot && !roots.has(ts)) roots.set(ts, {});
        record(judge(raw, `${file}#${index}`, isRoot));
      }
    }

    function judge(raw: Json, at: string, isRoot: boolean): SourceMessage {
      const subtype = raw.subtype as string | undefined;
      const skipped = (reason: RegExp): SourceMessage => ({ at, raw, fate: { fate: 'skipped', reason }, parts: [] });
      if (raw.type !== 'message') return skipped(/^not a message record/);
      if (EDIT_EVENTS.has(subtype!)) return skipped(/^edit event/);
      const content = CONTENT.has(subtype);
      if (!content && systemMessages === 'skip' && subtype !== 'tombstone') return skipped(new RegExp(`^system message: ${subtype}`));
      const body = bodyOf(raw);
      if (body === '') return skipped(/^empty message/);
      const authorId = (raw.user as string | undefined) ?? (raw.bot_id === `B${seed}OWN` ? `U${seed}BOT` : (raw.bot_id as string | undefined) ?? (subtype === 'bot_message' && raw.username ? `integration:${raw.username as string}` : undefined));
      const user = content && authorId !== undefined ? userName(authorId) : undefined;
      const parts = splitParts(body).map((part): PlatformMessage => ({ type: user === undefined ? 'SYSTEM_TEXT' : 'TEXT', ...(user === undefined ? {} : { user }), body: part, source: {} }));
      const rootTsOf = raw.thread_ts as string | undefined;
      if (rootTsOf === undefined || isRoot) {
        const placed = { message: strip(parts[0]!), replies: [] };
        if (isRoot && roots.get(rootTsOf!)!.imported === undefined) roots.get(rootTsOf!)!.imported = placed;
        channel.messages.push(placed, ...parts.slice(1).map((p) => ({ message: strip(p), replies: [] })));
        return { at, raw, fate: { fate: 'channel' }, parts };
      }
      const root = roots.get(rootTsOf);
      if (root === undefined) {
        // docs/threads.md "Orphans": a reply whose root is not in the export goes into the channel in its place.
        channel.messages.push(...parts.map((p) => ({ message: strip(p), replies: [] })));
        return { at, raw, fate: { fate: 'channel', orphan: true }, parts };
      }
      // docs/slack-migration.md "A reply also sent to the channel": a copy in the channel at its time, one record per part.
      const copies = subtype === 'thread_broadcast' ? parts.length : 0;
      for (const part of copies > 0 ? parts : []) channel.messages.push({ message: strip(part), replies: [] });
      if (root.imported === undefined) {
        // No thread to go into: a broadcast reply's copy stands for it at its time, the reply a duplicate of it.
        if (copies > 0) return { at, raw, fate: { fate: 'duplicate' }, parts, copies };
        channel.late.push(...parts.map(strip));
        return { at, raw, fate: { fate: 'channel', orphan: true, late: true }, parts, copies };
      }
      root.imported.replies.push(...parts.map(strip));
      return { at, raw, fate: { fate: 'reply', rootAt: rootTsOf }, parts, copies };
    }
  }

  function record(m: SourceMessage) {
    messages.push(m);
    const c = counts.messages;
    if (m.fate.fate === 'rejected' || m.fate.fate === 'skipped') {
      c.read++;
      c[m.fate.fate === 'rejected' ? 'rejected' : 'skipped']++;
      return;
    }
    c.read += m.parts.length + (m.copies ?? 0);
    if (m.fate.fate === 'duplicate') {
      c.duplicates += m.parts.length;
      c.imported += m.copies ?? 0;
      return;
    }
    c.imported += m.parts.length + (m.copies ?? 0);
    if (m.fate.fate === 'reply') counts.replies += m.parts.length;
    else if (m.fate.fate === 'channel' && m.fate.orphan) counts.orphans += m.parts.length;
  }

  // A folder no conversation list names: its messages are skipped.
  const stray = [{ type: 'message', ts: '1709251200.000001', user: humans[0], text: 'lost' }, { type: 'message', ts: '1709251200.000002', text: 'lost too' }];
  entries.push({ name: 'stray-folder/2024-03-01.json', data: JSON.stringify(stray) });
  stray.forEach((raw, index) => record({ at: `stray-folder/2024-03-01.json#${index}`, raw, fate: { fate: 'skipped', reason: /^folder stray-folder belongs to no conversation/ }, parts: [] }));

  // Users: users.json (rejected records aside), then the placeholders of every id a message or a list names.
  const referenced = new Set<string>();
  for (const m of messages) {
    if (typeof m.raw !== 'object') continue;
    const r = m.raw;
    const id = (r.user as string | undefined) ?? (r.bot_id === `B${seed}OWN` ? undefined : (r.bot_id as string | undefined)) ?? (r.subtype === 'bot_message' && r.username ? `integration:${r.username as string}` : undefined);
    if (id !== undefined && !people.some((p) => p.id === id)) referenced.add(id);
  }
  for (const c of convs) for (const id of [...(c.record.members as string[]), ...(c.record.creator === undefined ? [] : [c.record.creator as string])]) if (!people.some((p) => p.id === id)) referenced.add(id);
  for (const p of people) expected.users.set(p.username, p.displayName);
  for (const id of referenced) expected.users.set(userName(id), undefined);
  counts.users.read = users.length + referenced.size;
  counts.users.imported = expected.users.size;
  counts.members.imported = counts.members.read;

  entries.unshift(
    { name: 'users.json', data: JSON.stringify(users) },
    ...(['channel', 'group', 'dm', 'mpim'] as const).map((kind) => ({ name: `${kind === 'channel' ? 'channels' : `${kind}s`}.json`, data: JSON.stringify(convs.filter((c) => c.kind === kind).map((c) => c.record)) })),
  );
  return { seed, team, systemMessages, entries, messages, rejectedRecords, counts, expected };
}

/** Two kill points in journal order, drawn from the seed: one in the messages' uploads, one in the replies pass. */
/**
 * Kill points in journal order, drawn from the seed: one in the messages' uploads, and one in the replies
 * pass, after a reply that is not the last (the platform holds each reply REPLY_DELAY, so the kill lands
 * before the next; after the last one the run could end before a kill, polled every few ms, lands).
 */
export function killPoints(seed: number, c: Pick<OracleCase, 'counts' | 'expected'>): Array<(events: JournalEvent[]) => boolean> {
  const random = rng(seed * 7919);
  const submitted = 1 + Math.floor(random() * 4);
  const inUploads = (e: JournalEvent[]) => countEvents(e, 'part-submitted', 'messages') >= submitted;
  // Sent by the replies pass: the replies, and the orphans it sends into their channels after the imports.
  const sendable = c.counts.replies + c.expected.channels.reduce((n, ch) => n + ch.late.length, 0);
  if (sendable < 2) return [inUploads];
  const sent = 1 + Math.floor(random() * Math.min(3, sendable - 1));
  const replyEvents = (e: JournalEvent[]) => e.filter((x) => x.t === 'reply-sent').length;
  return [inUploads, (e) => countEvents(e, 'stage-done', 'members') >= 1 && replyEvents(e) >= sent];
}

/**
 * `chatport migrate <source> <exportPath>` SIGKILLed at the case's seeded kill points and resumed each
 * time; the run that finishes must end as the oracle says, record by record, with exactly the oracle on
 * the platform.
 */
export async function expectKilledAndResumed(o: { source: string; exportPath: string; state: string; env: Record<string, string>; seed: number; c: OracleCase; config: PipelineConfig; client: ChatportClient }): Promise<void> {
  const run = (killWhen?: (events: JournalEvent[]) => boolean) =>
    chatportProcess(['migrate', o.source, o.exportPath, '--state', o.state, '--json'], o.env, killWhen && (async () => killWhen(await journalEvents(o.state))));
  const points = killPoints(o.seed, o.c);
  for (const point of points) expect((await run(point)).signal).toBe('SIGKILL');
  const final = await run();
  const rejected = Object.values(o.c.counts).some((n) => typeof n === 'object' && n.rejected > 0);
  // 2: completed with rejects (the export has broken records).
  expect(final.code, final.stderr).toBe(rejected ? 2 : 0);
  const report = JSON.parse(final.stdout) as SlackRunFiles & { attempt: number; totals: { balanced: boolean } };
  expect(report.attempt).toBe(points.length + 1);
  expect(report.totals.balanced).toBe(true);
  await expectRecordOutcomes(report, o.c, o.exportPath, o.config);
  await expectPlatformHoldsCase(o.client, o.c);
}

/** A sandbox fault rule that holds each reply sent into a thread, so that a kill after one lands before the next. */
export const REPLY_DELAY: FaultRule = { method: 'POST', path: '/threads/*/messages', fault: { kind: 'delay', ms: 300 } };

/** A body over the limit (40,001 to 88,000 characters), words with now and then a newline or a 12,000-character word. */
export function longText(random: () => number): string {
  const words: string[] = [];
  const size = 40_001 + Math.floor(random() * 48_000);
  for (let length = 0; length < size; ) {
    const word = random() < 0.002 ? 'x'.repeat(12_000) : LOREM[Math.floor(random() * LOREM.length)]!;
    words.push(word, random() < 0.01 ? '\n' : ' ');
    length += word.length + 1;
  }
  return words.join('');
}

const LOREM = ['lorem', 'ipsum', '🎉', 'dolor', 'sit'];

/** A text of pieces and now and then a token (a mention, a link), space-separated. */
export function piecesText(random: () => number, token: () => string, pieces: readonly string[]): string {
  const piece = () => pieces[Math.floor(random() * pieces.length)]!;
  let t = random() < 0.3 ? token() : piece();
  while (random() < 0.45) t += ` ${random() < 0.3 ? token() : piece()}`;
  return t;
}

export const strip = ({ source: _source, ...m }: PlatformMessage): ExpectedMessage => m;

/** Writes the case as `dir/export.zip` and its pipeline; returns both. */
export async function writeSlackCase(dir: string, c: SlackCase, name: string, writePipeline: (dir: string, yaml: string) => Promise<{ path: string; config: PipelineConfig }>) {
  await mkdir(dir, { recursive: true });
  const zip = await writeRawZip(dir, 'export.zip', c.entries);
  const pipeline = await writePipeline(dir, `name: ${name}\nslack:\n  export: ${zip}\n  systemMessages: ${c.systemMessages}\noptions: { chunkRecords: 7, concurrency: 3 }\n`);
  return { zip, ...pipeline };
}

interface RejectLine {
  stage: string;
  file: string;
  index: number;
  reasons: { field?: string }[];
}

export interface SlackRunFiles {
  rejectsFile?: string | undefined;
  runDir?: string;
  stages: Partial<Record<string, object>>;
}

/**
 * Record by record: every message the oracle rejects is in rejects.ndjson blaming its field, every one it
 * skips is skipped by the stage reader with its reason, every duplicate is in duplicates/messages.ndjson,
 * and nothing else is rejected, skipped or a duplicate; the stage counts say the same. `exportPath`: the
 * zip or folder whose files the records' `at` names.
 */
export async function expectRecordOutcomes(report: SlackRunFiles, c: OracleCase, exportPath: string, config: PipelineConfig): Promise<void> {
  const rejects = (await ndjson(report.rejectsFile ?? '')) as RejectLine[];
  const at = (file: string, index: number) => `${file === exportPath ? '' : file.slice(exportPath.length + 1)}#${index}`;
  const rejected = new Map(rejects.filter((r) => r.stage === 'messages').map((r) => [at(r.file, r.index), r.reasons.map((x) => x.field ?? '')]));
  const duplicates = report.runDir === undefined ? [] : ((await ndjson(join(report.runDir, 'duplicates', 'messages.ndjson'))) as RejectLine[]);
  const duplicated = new Set(duplicates.map((d) => at(d.file, d.index)));
  const stage = config.stages.find((s) => s.stage === 'messages')!;
  const skipped = new Map<string, string>();
  for (const p of await all(readStageRecords(config, stage, { channelIds: () => 7 }))) if (p.kind === 'skipped') skipped.set(at(p.position.file, p.position.index), p.because ?? '');
  if (report.runDir !== undefined) {
    // Each of them is listed in the run folder, once, with its reason (docs/accounting.md).
    const lines = (await ndjson(join(report.runDir, 'skipped', 'messages.ndjson'))) as Array<{ file: string; index: number; because: string; record?: unknown }>;
    const listed = lines.map((l) => [at(l.file, l.index), l.because] as const);
    expect(listed.length, 'skipped messages listed once each').toBe(new Map(listed).size);
    expect(new Map(listed), 'skipped/messages.ndjson').toEqual(skipped);
    // A listed record is the message as the export holds it.
    const raws = new Map(c.messages.map((m) => [m.at, m.raw]));
    for (const l of lines) if (l.record !== undefined) expect(l.record, `record listed for ${at(l.file, l.index)}`).toEqual(raws.get(at(l.file, l.index)));
  }
  const outcome = (m: SourceMessage) =>
    rejected.has(m.at) ? `rejected ${rejected.get(m.at)!.join(',')}` : skipped.has(m.at) ? `skipped ${skipped.get(m.at)!}` : duplicated.has(m.at) ? 'duplicate' : 'imported';
  const said = (m: SourceMessage) => (m.fate.fate === 'rejected' ? `rejected ${m.fate.field}` : m.fate.fate === 'skipped' ? `skipped ${m.fate.reason.source}` : m.fate.fate === 'duplicate' ? 'duplicate' : 'imported');
  const actual = c.messages.map((m) => `${m.at}: ${outcome(m)}`);
  const oracle = c.messages.map((m) => `${m.at}: ${said(m)}`);
  expect(actual.map((line, i) => (c.messages[i]!.fate.fate === 'skipped' && (c.messages[i]!.fate as { reason: RegExp }).reason.test(line.slice(line.indexOf('skipped ') + 8)) ? oracle[i] : line)), 'messages, record by record').toEqual(oracle);
  expect(rejected.size, 'each rejected message listed once').toBe(c.messages.filter((m) => m.fate.fate === 'rejected').length);
  const users = rejects.filter((r) => r.stage === 'users').map((r) => `${at(r.file, r.index)}: ${r.reasons.map((x) => x.field).join(',')}`);
  expect(users.sort(), 'users records rejected').toEqual([...c.rejectedRecords].map(([where, field]) => `${where}: ${field}`).sort());
  for (const name of ['users', 'channels', 'members', 'messages'] as const) expect(report.stages[name], `${name} counts`).toMatchObject(c.counts[name]);
  const m = report.stages.messages as { replies?: number; orphans?: number };
  expect({ replies: m.replies ?? 0, orphans: m.orphans ?? 0 }, 'replies and orphans').toEqual({ replies: c.counts.replies, orphans: c.counts.orphans });
}

/** The platform, read over HTTP, holds exactly what the oracle says; returns what it holds. */
export async function expectPlatformHoldsCase(client: ChatportClient, c: Pick<OracleCase, 'expected'>): Promise<PlatformState> {
  const held = await readPlatform(client);
  const users = new Map(held.users.map((u) => [u.name, u.source.userKind === 'placeholder' ? undefined : u.displayName]));
  expect(users, 'users and their display names').toEqual(c.expected.users);
  expect(held.channels.map((ch) => ch.chatportKey).sort(), 'channels').toEqual(c.expected.channels.map((ch) => ch.key).sort());
  for (const want of c.expected.channels) {
    const got = held.channels.find((ch) => ch.chatportKey === want.key)!;
    expect({ type: got.type, name: got.name, members: got.members }, `channel ${want.key}`).toEqual({ type: want.type, name: want.name, members: want.members });
    const placed = got.messages.slice(0, want.messages.length).map((m) => {
      const part = (m.source.part as { index: number } | undefined)?.index ?? 1;
      const thread = part === 1 ? got.threads.get(String(m.source.id)) : undefined;
      return { message: strip(m), replies: (thread?.replies ?? []).map(strip) };
    });
    expect(placed, `messages of ${want.key} in ts order, with their threads`).toEqual(want.messages);
    const late = got.messages.slice(want.messages.length).map(strip);
    expect(late.sort(byBody), `orphans sent after the imports into ${want.key}`).toEqual([...want.late].sort(byBody));
  }
  return held;
}

const byBody = (a: ExpectedMessage, b: ExpectedMessage) => (a.body < b.body ? -1 : a.body > b.body ? 1 : 0);

export { diffSeeds } from '../import/messy-source.js';

export const caseDir = (root: string, seed: number) => join(root, `slack-seed-${seed}`);
