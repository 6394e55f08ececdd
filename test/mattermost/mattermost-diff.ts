/**
 * A seeded Mattermost bulk export (JSONL, as `mmctl export create` writes it) for the migration's
 * differential tests, and an oracle written from the docs alone (docs/mattermost-migration.md,
 * docs/threads.md, docs/accounting.md). The generator writes two teams (a channel name in both), public,
 * private and archived channels, direct and group channels (with and without a `direct_channel` line, one
 * of a single person, one of eleven), users (a guest, a bot, a deleted one, one defined twice) and authors
 * and reacting users the user lines lack, posts of several channels interleaved and listed by post id (out of time order), replies nested under
 * their post (under a system post, a long one, an empty one), edited and deleted posts, attachments,
 * message attachments, reactions, mentions, channel links, emoji and CR/LF, bodies over the limit, empty
 * posts, posts written twice (and once more with other reactions or one more reply), and broken lines. The oracle says per
 * line what becomes of it and what the platform holds.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PipelineConfig } from '../../src/config/index.js';
import { rng } from '../helpers/rng.js';
import { longText, nameAllocator, piecesText, splitParts, strip, validName, type Expected, type ExpectedMessage, type OracleCase, type SourceMessage } from '../slack-migration/slack-diff.js';
import type { Json, PlatformMessage } from '../slack-migration/support.js';

export interface MattermostCase extends OracleCase {
  seed: number;
  systemMessages: 'import' | 'skip';
  /** The export's lines as written. */
  lines: string[];
}

interface Channel {
  id: string;
  team?: string;
  name?: string;
  members: string[];
  direct: boolean;
  withLine?: boolean;
  /** Posts written so far (the last time used), for times in order. */
  clock: number;
}

const PIECES = ['hello', 'émoji 🎉 :tada: :+1:', 'line one\nline two', 'crlf\r\nend', '**bold** _it_ ~~s~~', '> quoted', '日本語', 'tab\there', '`code`', '  padded  ', '@channel', '@here', '@all', 'mail bo@example.com', 'a <b> & c'];

export function generateMattermostCase(seed: number): MattermostCase {
  const random = rng(seed);
  const chance = (p: number) => random() < p;
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T,>(list: readonly T[]): T => list[int(list.length)]!;
  const systemMessages = seed % 3 === 0 ? 'skip' : 'import';
  const lines: string[] = [];
  const line = (type: string, value: unknown) => lines.push(JSON.stringify({ type, [type]: value }));

  const teams = chance(0.5) ? ['alpha', 'beta'] : ['beta', 'alpha'];
  line('version', 1);
  for (const t of teams) line('team', { name: t, display_name: `Team ${t}`, type: 'O', description: '' });
  const teamChannels: Array<Json & { team: string; name: string }> = [
    { team: 'alpha', name: 'town-hall', display_name: 'Town Hall', type: 'O', header: 'Welcome **all**', purpose: '' },
    { team: 'alpha', name: 'dev', display_name: 'Dev ☕', type: 'P', header: '', purpose: 'backend' },
    { team: 'beta', name: 'town-hall', display_name: 'Town Hall', type: 'O', header: '', purpose: '' },
    ...(chance(0.6) ? [{ team: 'alpha', name: 'old-stuff', display_name: 'Old', type: 'O', header: '', purpose: '', deleted_at: 1650000000000 }] : []),
  ];
  for (const c of teamChannels) line('channel', c);

  // Users: people (a guest, a bot, a deleted one), their memberships; one username defined twice.
  const people = [
    { username: 'ana', nickname: 'Ana ✨', first_name: 'Ana', last_name: 'Lima', roles: 'system_admin system_user' },
    { username: 'bo.berg', nickname: '', first_name: 'Bo', last_name: 'Berg', roles: 'system_user' },
    { username: 'zoe', nickname: 'Zoë 🚀', first_name: '', last_name: '', roles: 'system_user' },
    { username: 'kim_lee', nickname: '', first_name: '', last_name: '', roles: 'system_guest' },
    { username: 'helper-bot', nickname: '', first_name: 'Helper', last_name: '', roles: 'system_user', is_bot: true },
    { username: 'former', nickname: '', first_name: 'Former', last_name: 'Colleague', roles: 'system_user', delete_at: 1650000000000 },
  ];
  const members = new Map<string, string[]>(teamChannels.map((c) => [`${c.team}/${c.name}`, []]));
  const rejectedRecords = new Map<string, string>();
  for (const p of people) {
    const joined = teamChannels.filter(() => p.username === 'ana' || chance(0.6));
    for (const c of joined) members.get(`${c.team}/${c.name}`)!.push(p.username);
    const byTeam = teams.map((t) => ({ name: t, roles: 'team_user', channels: joined.filter((c) => c.team === t).map((c) => ({ name: c.name, roles: 'channel_user' })) }));
    line('user', { ...p, email: `${p.username}@example.invalid`, position: '', locale: 'en', delete_at: (p as { delete_at?: number }).delete_at ?? 0, teams: byTeam });
    if (p.username === 'zoe' && chance(0.5)) {
      rejectedRecords.set(`#${lines.length}`, 'user.username');
      line('user', { username: 'zoe', nickname: 'second zoe', teams: [{ name: 'alpha', roles: 'team_user', channels: [{ name: 'town-hall', roles: 'channel_user' }] }] });
    }
  }
  const usernames = people.map((p) => p.username);
  const ghost = 'ghost.writer';
  const reactor = 'far.reactor';
  const crowd = Array.from({ length: 11 }, (_, i) => (i < usernames.length ? usernames[i]! : `crowd${i}`));

  // Direct channels: a pair and a trio with their lines; a pair, a person alone and eleven people named only by their posts.
  const channels: Channel[] = teamChannels.map((c) => ({ id: `${c.team}/${c.name}`, team: c.team, name: c.name, members: members.get(`${c.team}/${c.name}`)!, direct: false, clock: 0 }));
  const direct = (list: string[], withLine: boolean) => {
    if (withLine) line('direct_channel', { members: list, header: chance(0.5) ? 'our dm' : '', favorited_by: null });
    channels.push({ id: `dm/${[...new Set(list)].sort().join(',')}`, members: [...new Set(list)], direct: true, withLine, clock: 0 });
  };
  direct(['bo.berg', 'ana'], true);
  direct(['ana', 'zoe', 'bo.berg'], true);
  direct(['zoe', 'kim_lee'], false);
  if (chance(0.5)) direct(['ana'], false);
  if (chance(0.4)) direct(crowd, false);

  const start = Date.UTC(2024, 2, 1);
  const n = 25 + int(25);
  const written: Array<{ channel: Channel; line: string }> = [];
  for (let i = 0; i < n; i++) {
    const roll = random();
    if (roll < 0.03) {
      lines.push(pick(['{"type":"post","post":{"team":"alpha"', 'not json at all', '']));
      if (lines.at(-1) === '') lines.pop();
      continue;
    }
    if (roll < 0.05) {
      line(pick(['reminder', 'bot_post']), { text: 'not a line chatport reads' });
      continue;
    }
    if (roll < 0.1 && written.length > 0) {
      // The same post written twice; now and then once more with other reactions or one more reply (a conflict, not a duplicate).
      const again = pick(written);
      const copy = JSON.parse(again.line) as Json & { type: string };
      const record = copy[copy.type] as Json;
      const roll = random();
      if (roll < 0.1) record.reactions = [{ user: 'ana', emoji_name: 'eyes', create_at: 1 }];
      else if (roll < 0.3) record.replies = [...((record.replies as Json[] | undefined) ?? []), post(again.channel, pick(again.channel.members.length > 0 ? again.channel.members : ['ana']))];
      lines.push(JSON.stringify(copy));
      continue;
    }
    const channel = roll < 0.13 ? ({ id: 'alpha/nowhere', team: 'alpha', name: 'nowhere', members: [], direct: false, clock: 0 } as Channel) : pick(channels);
    const authors = channel.members.length > 0 ? [...channel.members, ghost] : ['ana', ghost];
    const value = post(channel, pick(authors));
    if (roll >= 0.13 && roll < 0.15) delete value.message;
    if (chance(0.3)) {
      const replies: Json[] = [];
      for (let r = 0, k = 1 + int(4); r < k; r++) replies.push(post(channel, pick(authors)));
      value.replies = replies;
    }
    if (channel.direct) line('direct_post', { channel_members: chance(0.5) ? [...channel.members].reverse() : channel.members, ...value });
    else line('post', { team: channel.team, channel: channel.name, ...value });
    written.push({ channel, line: lines.at(-1)! });
  }

  listByPostId(lines, random);

  /** One post or reply: times in order within the channel. */
  function post(channel: Channel, user: string): Json {
    channel.clock = Math.max(channel.clock, start) + 1000 * (1 + int(600));
    const at = channel.clock;
    const roll = random();
    const base: Json = { user, message: text(), create_at: at };
    if (roll < 0.08) return { ...base, edit_at: at + 60_000 };
    if (roll < 0.12) return { ...base, delete_at: at + 90_000 };
    if (roll < 0.18) return { ...base, message: chance(0.5) ? 'see file' : '', attachments: [{ path: `data/${at}/report ${int(9)}.pdf` }] };
    if (roll < 0.24) return { ...base, reactions: [{ user: pick([...channel.members, 'ana']), emoji_name: 'thumbsup', create_at: at + 5 }, { user: reactor, emoji_name: 'tada', create_at: at + 6 }] };
    if (roll < 0.28) return { ...base, message: '' };
    if (roll < 0.31) return { ...base, message: '', props: { attachments: [{ fallback: 'Build 7 passed', title: 'Build 7', text: 'all green' }] } };
    if (roll < 0.36) return { ...base, type: pick(['system_join_channel', 'system_header_change', 'system_add_to_channel']), message: `${user} did something.` };
    if (roll < 0.4) return { ...base, message: longText(random) };
    if (roll < 0.42) return { ...base, is_pinned: true };
    return base;
  }

  function text(): string {
    const token = () => pick([() => `@${pick([...usernames, ghost, 'nobody.here'])}`, () => `~${pick(['town-hall', 'dev', 'nowhere'])}`, () => pick(PIECES)])();
    return piecesText(random, token, PIECES);
  }


  // The oracle: names first (users, then placeholders; team channels, then direct ones), then line by line.
  const userNames = nameAllocator();
  const username = new Map<string, string>();
  const expected: Expected = { users: new Map(), channels: [] };
  const userLines = lines.map((l, i) => ({ l: parseLine(l) ?? {}, i }));
  for (const { l, i } of userLines) {
    if (l.type !== 'user' || rejectedRecords.has(`#${i}`)) continue;
    const u = l.user as Json & { username: string };
    username.set(u.username, userNames(validName(u.username, `user-${u.username}`)));
    const real = [u.first_name, u.last_name].filter((x) => typeof x === 'string' && x.trim() !== '').join(' ');
    expected.users.set(username.get(u.username)!, (u.nickname as string) || real || u.username);
  }
  // Placeholders: every member of a direct channel, author and reacting user of a post or reply (lines that parse), first named first.
  const placeholders = new Set<string>();
  for (const { l } of userLines) {
    const p = (l.post ?? l.direct_post ?? l.direct_channel) as Json | undefined;
    if (p === undefined || (l.direct_channel === undefined && typeof p.message !== 'string')) continue;
    const named = [...((p.members ?? p.channel_members ?? []) as string[])];
    for (const q of l.direct_channel === undefined ? [p, ...((p.replies as Json[] | undefined) ?? [])] : []) named.push(q.user as string, ...((q.reactions as Json[] | undefined) ?? []).map((r) => r.user as string));
      for (const u of named)
        if (!username.has(u)) {
          username.set(u, userNames(validName(u, `user-${u}`)));
          placeholders.add(u);
          expected.users.set(username.get(u)!, undefined);
        }
  }
  const channelNames = nameAllocator();
  const platformChannel = new Map<string, { type: string; name?: string }>();
  const directSets = new Set<string>();
  const present = channels.filter((c) => !c.direct || c.withLine || written.some((w) => w.channel === c && typeof ((parseLine(w.line)!.direct_post as Json).message) === 'string'));
  for (const c of present) {
    if (!c.direct) platformChannel.set(c.id, { type: c.team === undefined ? 'PUBLIC' : teamChannels.find((t) => `${t.team}/${t.name}` === c.id)!.type === 'O' ? 'PUBLIC' : 'PRIVATE', name: channelNames(validName(c.name, c.id)) });
  }
  for (const c of present) {
    if (!c.direct) continue;
    const set = [...c.members].sort().join(',');
    if (c.members.length >= 2 && c.members.length <= 10 && !directSets.has(set)) {
      directSets.add(set);
      platformChannel.set(c.id, { type: 'DIRECT' });
    } else platformChannel.set(c.id, { type: 'PRIVATE', name: channelNames(validName(`dm-${[...c.members].sort().join('-')}`, `group-${c.id}`)) });
  }
  function channelName(id: string): string | undefined {
    return platformChannel.get(id)?.name;
  }
  const workspace = teams[0]!;
  const byId = new Map<string, Expected['channels'][number]>();
  for (const c of present) {
    const p = platformChannel.get(c.id)!;
    const entry = { key: `${workspace}/${c.id}`, type: p.type, ...(p.name === undefined ? {} : { name: p.name }), members: c.members.map((m) => username.get(m)!).sort(), messages: [], late: [] };
    expected.channels.push(entry);
    byId.set(c.id, entry);
  }
  const zero = () => ({ read: 0, imported: 0, rejected: 0, skipped: 0, duplicates: 0 });
  const counts: MattermostCase['counts'] = { users: zero(), channels: zero(), members: zero(), messages: zero(), replies: 0, orphans: 0 };
  const userLineCount = userLines.filter(({ l }) => l.type === 'user').length;
  counts.users = { ...zero(), read: userLineCount + placeholders.size, imported: expected.users.size, rejected: rejectedRecords.size };
  counts.channels = { ...zero(), read: present.length, imported: present.length };
  const memberCount = expected.channels.filter((c) => c.type !== 'DIRECT').reduce((s, c) => s + c.members.length, 0);
  counts.members = { ...zero(), read: memberCount, imported: memberCount };

  // Messages: each post line by create_at (equal times in file order), its replies after it; keys are channel, time, author and text.
  const messages: SourceMessage[] = [];
  const keys = new Map<string, string>();
  const placed = new Map<string, Expected['channels'][number]['messages'][number]>();
  const count = (fate: 'imported' | 'duplicates' | 'rejected' | 'skipped', size: number) => {
    counts.messages.read += size;
    counts.messages[fate] += size;
  };
  for (const index of byCreateAt(lines)) {
    const raw = lines[index]!;
    const at = `#${index}`;
    let parsed: Json;
    try {
      parsed = JSON.parse(raw) as Json;
    } catch {
      count('rejected', 1);
      messages.push({ at, raw, fate: { fate: 'rejected', field: '(line)' }, parts: [] });
      continue;
    }
    const type = parsed.type as string;
    if (['version', 'team', 'channel', 'user', 'direct_channel'].includes(type)) continue;
    if (type !== 'post' && type !== 'direct_post') {
      count('rejected', 1);
      messages.push({ at, raw: parsed, fate: { fate: 'rejected', field: 'type' }, parts: [] });
      continue;
    }
    const p = parsed[type] as Json;
    const channelId = type === 'post' ? `${p.team as string}/${p.channel as string}` : `dm/${[...new Set(p.channel_members as string[])].sort().join(',')}`;
    if (typeof p.message !== 'string') {
      count('rejected', 1);
      messages.push({ at, raw: parsed, fate: { fate: 'rejected', field: `${type}.message` }, parts: [] });
      continue;
    }
    const channel = byId.get(channelId);
    if (channel === undefined) {
      count('rejected', 1);
      messages.push({ at, raw: parsed, fate: { fate: 'rejected', field: `${type}.channel` }, parts: [] });
      continue;
    }
    const team = type === 'post' ? (p.team as string) : undefined;
    // One entry per line (its records share the line's place): the root's fate, else its replies'.
    let lineFate: SourceMessage['fate'] = { fate: 'channel' };
    const worse = (f: SourceMessage['fate']) => {
      const rank = (x: SourceMessage['fate']) => ({ rejected: 3, skipped: 2, duplicate: 1, channel: 0, reply: 0 })[x.fate];
      if (rank(f) > rank(lineFate)) lineFate = f;
    };
    let root: Expected['channels'][number]['messages'][number] | undefined;
    for (const [r, q] of [p, ...((p.replies as Json[] | undefined) ?? [])].entries()) {
      const parts = partsOf(q, team);
      const key = `${channelId}/${q.create_at as number}/${q.user as string}/${q.message as string}`;
      const content = JSON.stringify([q, r === 0 ? null : (p.create_at as number)]);
      // A system post with replies is kept: it holds their thread (docs/mattermost-migration.md).
      const holdsThread = r === 0 && ((p.replies as Json[] | undefined) ?? []).length > 0;
      if (systemOf(q) !== undefined && systemMessages === 'skip' && !holdsThread) {
        count('skipped', 1);
        worse({ fate: 'skipped', reason: /^system message: system_/ });
        continue;
      }
      const seen = keys.get(key);
      if (seen !== undefined) {
        const fate = seen === content ? 'duplicates' : 'rejected';
        count(fate, parts.length);
        worse(fate === 'duplicates' ? { fate: 'duplicate' } : { fate: 'rejected', field: '' });
        // Its replies go into the thread of the post of that key on the platform (docs/threads.md: a reply finds its root by key).
        if (r === 0) root = placed.get(key);
        continue;
      }
      keys.set(key, content);
      count('imported', parts.length);
      if (r === 0) {
        root = { message: strip(parts[0]!), replies: [] };
        placed.set(key, root);
        channel.messages.push(root, ...parts.slice(1).map((m) => ({ message: strip(m), replies: [] })));
      } else if (root !== undefined) {
        counts.replies += parts.length;
        root.replies.push(...parts.map(strip));
      } else {
        // docs/threads.md "Orphans": the root is not on the platform; the reply goes into its channel after the imports.
        counts.orphans += parts.length;
        channel.late.push(...parts.map(strip));
      }
    }
    messages.push({ at, raw: parsed, fate: lineFate, parts: [] });
  }
  return { seed, systemMessages, lines, messages, rejectedRecords, counts, expected };

  function systemOf(q: Json): string | undefined {
    return typeof q.type === 'string' && q.type.startsWith('system_') ? q.type : undefined;
  }

  /** docs "Text" and "What becomes what": the body shown, in parts of at most 40,000 characters. */
  function partsOf(q: Json, team: string | undefined): PlatformMessage[] {
    const message = q.message as string;
    const shown = shownText(message, team);
    const files = ((q.attachments as Json[] | undefined) ?? []).map((a) => `[file: ${(a.path as string).split('/').at(-1)!}] ${a.path as string}`);
    let body = [shown, ...files].filter((l) => l !== '').join('\n');
    const cards = (q.props as { attachments?: Json[] } | undefined)?.attachments;
    if (body === '' && cards !== undefined) body = cards.map((c) => c.fallback as string).join('\n');
    const system = systemOf(q) !== undefined;
    const user = system ? undefined : username.get(q.user as string)!;
    return splitParts(body === '' ? '(empty message)' : body).map((b): PlatformMessage => ({ type: system ? 'SYSTEM_TEXT' : 'TEXT', ...(user === undefined ? {} : { user }), body: b, source: {} }));
  }

  /** The text as generated, token by token (texts are regenerated from their pieces by the same seed). */
  function shownText(message: string, team: string | undefined): string {
    return message
      .split(' ')
      .map((w) => {
        if (/^@[a-z][a-z0-9._-]*$/.test(w) && !['@channel', '@here', '@all'].includes(w)) return `@${username.get(w.slice(1)) ?? w.slice(1)}`;
        if (/^~[a-z][a-z0-9_-]*$/.test(w)) {
          const name = team === undefined ? undefined : channelName(`${team}/${w.slice(1)}`);
          return name === undefined ? w : `#${name}`;
        }
        return w;
      })
      .join(' ');
  }
}

/**
 * As `mmctl export create` lists them: the post and direct_post lines by post id, which is random, so in
 * no order of time; every other line stays where it is.
 */
function listByPostId(lines: string[], random: () => number): void {
  const slots = lines.flatMap((l, i) => (postTime(l) === undefined ? [] : [i]));
  const posts = slots.map((i) => lines[i]!);
  for (let i = posts.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [posts[i], posts[j]] = [posts[j]!, posts[i]!];
  }
  slots.forEach((slot, i) => (lines[slot] = posts[i]!));
}

/** docs "Stages": the lines' indexes as read, posts in `create_at` order (equal times as listed) after the rest. */
function byCreateAt(lines: string[]): number[] {
  const key = (i: number) => postTime(lines[i]!) ?? -Infinity;
  return lines.map((_, i) => i).sort((a, b) => key(a) - key(b) || a - b);
}

/** A post or direct_post line's `create_at`; undefined for any other line. */
function postTime(l: string): number | undefined {
  const parsed = parseLine(l);
  const post = (parsed?.post ?? parsed?.direct_post) as Json | undefined;
  return typeof post?.create_at === 'number' ? post.create_at : undefined;
}

function parseLine(l: string): Json | undefined {
  try {
    return JSON.parse(l) as Json;
  } catch {
    return undefined;
  }
}

/** Writes the case as `dir/export.jsonl` and its pipeline; returns both. */
export async function writeMattermostCase(dir: string, c: MattermostCase, name: string, writePipeline: (dir: string, yaml: string) => Promise<{ path: string; config: PipelineConfig }>) {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'export.jsonl');
  await writeFile(file, `${c.lines.join('\n')}\n`);
  const pipeline = await writePipeline(dir, `name: ${name}\nmattermost:\n  export: ${file}\n  systemMessages: ${c.systemMessages}\noptions: { chunkRecords: 7, concurrency: 3 }\n`);
  return { file, ...pipeline };
}

export const mattermostCaseDir = (root: string, seed: number) => join(root, `mattermost-seed-${seed}`);

export type { ExpectedMessage };
