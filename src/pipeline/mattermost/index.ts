import { parseRecordBatches, type SourceItem, type UnparseableRecord } from '../../formats/index.js';
import { openMattermostExport, type MattermostExport } from '../../sources/mattermost/open.js';
import type { ChatDirectory, ChatDirectoryBuilder, ExportPosition, MessageOutcome } from '../../transform/chat-export/index.js';
import {
  MattermostBot,
  MattermostChannel,
  MattermostDirectChannel,
  MattermostDirectPost,
  MattermostPost,
  MattermostTeam,
  MattermostUser,
  directChannelId,
  directChannelMembers,
  mattermostBot,
  mattermostChannel,
  mattermostDirectChannel,
  mattermostThread,
  mattermostUser,
  postId,
  postSlot,
  teamChannelId,
  type MattermostNames,
} from '../../transform/mattermost/index.js';
import { PostIds, SharedIdHashes, withSlotSiblings } from '../../transform/mattermost/post-keys.js';
import { parseRecord } from '../../transform/slack/records.js';
import { DEFAULT_SORT_BUDGET_BYTES, ExternalSort, JSON_CODEC, type SortCodec } from '../../shared/external-sort.js';
import { ConfigError } from '../../shared/errors.js';
import type { ChatExportAdapter } from '../chat-export/adapter.js';
import { chatExportReader } from '../chat-export/read-stage.js';
import type { PlatformExportReader } from '../platform-export/types.js';

/** Mattermost bulk exports as pipeline stages (docs/mattermost-migration.md). */
const mattermostAdapter: ChatExportAdapter = {
  name: 'Mattermost bulk export',
  async open(path) {
    const exp = await openMattermostExport(path);
    return {
      origin: path,
      scan: (builder, signal) => scanMattermost(exp, builder, signal),
      messages: (directory, owns, signal) => mattermostMessages(exp, directory, owns, signal),
      close: () => exp.close(),
    };
  },
};

export const mattermostExportReader: PlatformExportReader = chatExportReader(mattermostAdapter);

/** Lines that hold no user, channel or message: read for what they say, counted nowhere. */
const NOT_RECORDS = new Set(['version', 'team', 'emoji', 'scheme', 'role']);

interface Line {
  type: string;
  value: unknown;
  position: ExportPosition;
}

/** The export's lines, parsed, in batches; a line that is not JSON comes as an unparseable item. */
async function* lines(exp: MattermostExport, signal?: AbortSignal): AsyncGenerator<Array<Line | { unparseable: SourceItem; position: ExportPosition }>> {
  for await (const batch of parseRecordBatches(await exp.openLines(), { file: exp.file, format: 'ndjson', gzip: 'auto' })) {
    signal?.throwIfAborted();
    yield batch.map((item) => {
      const line = item.position.line ?? item.position.index + 1;
      const position = { file: exp.file, index: line - 1, line };
      if (!('record' in item)) return { unparseable: item, position };
      const type = String(item.record.type);
      return { type, value: item.record[type], position };
    });
  }
}

/**
 * Pass 1: teams (the first names the workspace), channels, users with their memberships, direct
 * channels, and every author and reacting user of the posts (placeholders for those the export lacks).
 * Channels are added at the end, once their members (which the user lines list) are known.
 */
async function scanMattermost(exp: MattermostExport, builder: ChatDirectoryBuilder, signal?: AbortSignal): Promise<void> {
  const teams = new Map<string, string | undefined>();
  const channels: Array<() => void> = [];
  const members = new Map<string, string[]>();
  const memberOf = (id: string) => members.get(id) ?? members.set(id, []).get(id)!;
  const direct = new Set<string>();
  const addDirect = (names: string[], header: string | null | undefined, at: ExportPosition) => {
    const id = directChannelId(names);
    if (direct.has(id)) return;
    direct.add(id);
    // Members are usernames: one the export lacks becomes a placeholder of that name (not `user-<id>`).
    for (const name of names) builder.noteUser(name, { handle: name, reason: 'member of a direct channel' }, at);
    channels.push(() => builder.addChannel(mattermostDirectChannel(names, header, at)));
  };
  for await (const batch of lines(exp, signal))
    for (const line of batch) {
      if ('unparseable' in line) continue;
      const { type, value, position } = line;
      if (type === 'team') {
        const team = parseRecord(MattermostTeam, value);
        if (team.ok && !teams.has(team.value.name)) {
          if (teams.size === 0) builder.setWorkspace(team.value.name);
          teams.set(team.value.name, team.value.display_name ?? undefined);
        }
      } else if (type === 'channel') {
        const parsed = parseRecord(MattermostChannel, value);
        if (!parsed.ok) builder.reject({ stage: 'channels', position, field: `channel.${parsed.problem.field}`, expected: 'a Mattermost channel line', reason: parsed.problem.reason, raw: value });
        else {
          const c = parsed.value;
          channels.push(() => {
            if (!builder.addChannel(mattermostChannel(c, memberOf(teamChannelId(c.team, c.name)), teams.get(c.team), position)))
              builder.reject({ stage: 'channels', position, field: 'channel.name', expected: 'a channel name not used before in its team', reason: `${c.team}/${c.name} is already defined`, raw: value });
          });
        }
      } else if (type === 'user') {
        const parsed = parseRecord(MattermostUser, value);
        if (!parsed.ok) builder.reject({ stage: 'users', position, field: `user.${parsed.problem.field}`, expected: 'a Mattermost user line', reason: parsed.problem.reason, raw: value });
        else if (!builder.addUser(mattermostUser(parsed.value, position)))
          builder.reject({ stage: 'users', position, field: 'user.username', expected: 'a username not used before', reason: `${parsed.value.username} is already defined`, raw: value });
        else for (const team of parsed.value.teams ?? []) for (const c of team.channels ?? []) memberOf(teamChannelId(team.name, c.name)).push(parsed.value.username);
      } else if (type === 'bot') {
        const parsed = parseRecord(MattermostBot, value);
        if (!parsed.ok) builder.reject({ stage: 'users', position, field: `bot.${parsed.problem.field}`, expected: 'a Mattermost bot line', reason: parsed.problem.reason, raw: value });
        else if (!builder.addUser(mattermostBot(parsed.value, position)))
          builder.reject({ stage: 'users', position, field: 'bot.username', expected: 'a username not used before', reason: `${parsed.value.username} is already defined`, raw: value });
      } else if (type === 'direct_channel') {
        const parsed = parseRecord(MattermostDirectChannel, value);
        if (!parsed.ok) builder.reject({ stage: 'channels', position, field: `direct_channel.${parsed.problem.field}`, expected: 'a Mattermost direct_channel line', reason: parsed.problem.reason, raw: value });
        else addDirect(directChannelMembers(parsed.value), parsed.value.header, position);
      } else if (type === 'post' || type === 'direct_post') {
        const post = parsePost(type, value);
        if (post === undefined) continue;
        if (post.direct) addDirect(post.direct.channel_members, undefined, position);
        for (const p of [post.record, ...(post.record.replies ?? [])]) {
          builder.noteUser(p.user, { handle: p.user, reason: 'author of a post' }, position);
          for (const r of p.reactions ?? []) builder.noteUser(r.user, { handle: r.user, reason: 'reacted to a post' }, position);
        }
      }
    }
  for (const add of channels) add();
}

/**
 * Pass 2: each channel's posts by `create_at` (equal times in the export's order), each with its replies;
 * other lines as outcomes as they come. `mmctl export create` lists posts by post id, which is random, so
 * the posts this shard sends go through an external sort (memory bounded, spilled past the budget); every
 * read sorts alike, so a resumed run rebuilds the same chunks. A post keeps its own line's position.
 */
async function* mattermostMessages(exp: MattermostExport, directory: ChatDirectory, owns: (channelId: string) => boolean, signal?: AbortSignal): AsyncGenerator<MessageOutcome[]> {
  const names: MattermostNames = {
    user: (username) => directory.users.get(username)?.username,
    isBot: (username) => directory.users.get(username)?.source.kind === 'bot',
    channel: (team, name) => (team === undefined ? undefined : directory.channels.get(teamChannelId(team, name))?.name),
  };
  const posts = new ExternalSort(postSortBudget(), undefined, JSON_CODEC as SortCodec<SortedPost>);
  const hashes = { ids: new SharedIdHashes(), slots: new SharedIdHashes() };
  try {
    for await (const batch of lines(exp, signal)) {
      const out: MessageOutcome[] = [];
      for (const line of batch) lineOutcome(line, directory, owns, posts, hashes, out);
      if (out.length > 0) yield out;
    }
    yield* inPostBatches(sortedPosts(exp.file, posts, names, new PostIds(hashes.ids.shared()), hashes.slots.shared(), signal));
  } finally {
    posts.close();
  }
}

/** A line of pass 2: a post to send is added to the sort; anything else (a reject) goes straight to `out`. */
function lineOutcome(line: Line | { unparseable: SourceItem; position: ExportPosition }, directory: ChatDirectory, owns: (channelId: string) => boolean, posts: ExternalSort<SortedPost>, hashes: { ids: SharedIdHashes; slots: SharedIdHashes }, out: MessageOutcome[]): void {
  if ('unparseable' in line) {
    // A line that parsed but cannot be sent (an unreadable byte, a lone surrogate) names its field: `post.message`.
    const { unparseable } = line.unparseable as UnparseableRecord;
    out.push({ kind: 'rejected', position: line.position, field: unparseable.field ?? '(line)', expected: unparseable.expected, reason: unparseable.message, raw: unparseable.raw });
  } else if (line.type === 'post' || line.type === 'direct_post') {
    const post = postToSend(line, directory, owns);
    if (post === undefined) return;
    if ('kind' in post) out.push(post);
    else {
      for (const p of [post.record, ...(post.record.replies ?? [])]) hashes.ids.note(postId(post.channelId, p));
      hashes.slots.note(postSlot(post.channelId, post.record));
      posts.add(post.record.create_at, { line: line.position.line!, type: line.type as SortedPost['type'], record: post.record });
    }
  } else if (!NOT_RECORDS.has(line.type) && !['user', 'bot', 'channel', 'direct_channel'].includes(line.type))
    out.push({ kind: 'rejected', position: line.position, field: 'type', expected: 'a Mattermost bulk export line type (version, team, channel, user, bot, post, direct_channel, direct_post, emoji)', reason: JSON.stringify(line.type), raw: { type: line.type } });
}

/** What the sort holds of a post: its line number, its type and its record as parsed. */
interface SortedPost {
  line: number;
  type: 'post' | 'direct_post';
  record: MattermostPost | MattermostDirectPost;
}

/**
 * The sorted posts as messages (the records were checked on the way in, so they are not parsed again). A
 * root post of a crowded slot (`crowded`: hashes of slots noted twice) carries its slot's ids.
 */
function* sortedPosts(file: string, posts: ExternalSort<SortedPost>, names: MattermostNames, ids: PostIds, crowded: ReadonlySet<number>, signal?: AbortSignal): Generator<MessageOutcome[]> {
  const slotFacts = ({ type, record }: SortedPost) => {
    const { channelId } = channelOf(type, record);
    return { time: record.create_at, slot: postSlot(channelId, record), id: () => postId(channelId, record) };
  };
  for (const [{ line, type, record }, siblings] of withSlotSiblings(posts.sorted(), crowded, slotFacts)) {
    signal?.throwIfAborted();
    const { team, channelId } = channelOf(type, record);
    yield mattermostThread(record, channelId, team, names, { file, index: line - 1, line }, ids, siblings);
  }
}

/** Threads gathered into batches of at least POST_BATCH outcomes (the stage runner loops over a batch). */
async function* inPostBatches(threads: Iterable<MessageOutcome[]>): AsyncGenerator<MessageOutcome[]> {
  let batch: MessageOutcome[] = [];
  for (const thread of threads) {
    batch.push(...thread);
    if (batch.length < POST_BATCH) continue;
    yield batch;
    batch = [];
  }
  if (batch.length > 0) yield batch;
}

const POST_BATCH = 500;

/** The post sort's memory: CHATPORT_MATTERMOST_SORT_BYTES (tests give a tiny one to exercise the spill), else the default. */
function postSortBudget(): number {
  const text = process.env.CHATPORT_MATTERMOST_SORT_BYTES;
  if (text === undefined || text === '') return DEFAULT_SORT_BUDGET_BYTES;
  const bytes = Number(text);
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new ConfigError(`CHATPORT_MATTERMOST_SORT_BYTES must be a whole number of bytes, not ${JSON.stringify(text)}`);
  return bytes;
}

type ParsedPost = { record: MattermostPost; team: string; channelId: string; direct?: undefined } | { record: MattermostDirectPost; team?: undefined; channelId: string; direct: MattermostDirectPost };

/** A post or direct_post line, its channel found; undefined (or the problem) when it does not parse. */
function parsePost(type: string, value: unknown): ParsedPost | undefined;
function parsePost(type: string, value: unknown, problems: true): ParsedPost | { field: string; reason: string };
function parsePost(type: string, value: unknown, problems = false): ParsedPost | { field: string; reason: string } | undefined {
  const parsed = type === 'post' ? parseRecord(MattermostPost, value) : parseRecord(MattermostDirectPost, value);
  if (!parsed.ok) return problems ? parsed.problem : undefined;
  return { record: parsed.value, ...channelOf(type, parsed.value) } as ParsedPost;
}

/** A parsed post's channel: `<team>/<name>`, or a direct channel's by its members. */
function channelOf(type: string, record: MattermostPost | MattermostDirectPost): { team?: string; channelId: string; direct?: MattermostDirectPost } {
  if (type === 'post') {
    const post = record as MattermostPost;
    return { team: post.team, channelId: teamChannelId(post.team, post.channel) };
  }
  const direct = record as MattermostDirectPost;
  return { channelId: directChannelId(direct.channel_members), direct };
}

/**
 * A post line this shard sends (its record and channel), a reject naming the line, or undefined for
 * another shard's channel (its posts are parsed, but not mapped).
 */
function postToSend(line: Line, directory: ChatDirectory, owns: (channelId: string) => boolean): ParsedPost | MessageOutcome | undefined {
  const parsed = parsePost(line.type, line.value, true);
  if (!('record' in parsed)) return { kind: 'rejected', position: line.position, field: `${line.type}.${parsed.field}`, expected: `a Mattermost ${line.type} line`, reason: parsed.reason, raw: line.value };
  if (!owns(parsed.channelId)) return undefined;
  if (!directory.channels.has(parsed.channelId))
    return { kind: 'rejected', position: line.position, field: `${line.type}.channel`, expected: 'a channel the export defines', reason: `${parsed.channelId} is not defined by a channel line`, raw: line.value, channelId: parsed.channelId };
  return parsed;
}
