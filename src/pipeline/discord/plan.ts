import { recordTextProblem } from '../../shared/json-checks/export-text.js';
import { readDiscordHeader, type DiscordDateRange, type DiscordFileError } from '../../sources/discord/channel-file.js';
import type { SlackExport } from '../../sources/slack/index.js';
import { DiscordChannel, DiscordGuild, PRIVATE_THREAD, THREAD_TYPES } from '../../transform/discord/index.js';
import { parseRecord } from '../../transform/slack/records.js';

/** One file of the export and where its messages go. */
export interface DiscordFile {
  file: string;
  guild: DiscordGuild;
  channel: DiscordChannel;
  /** The platform channel its messages land in: its own, or for a thread file the parent channel's. */
  channelId: string;
  /** For a thread file: the thread's id (its root message's). */
  threadId?: string;
  /** The file's `dateRange` header: two exports of one channel are read by it (`byDateRange`). */
  dateRange?: DiscordDateRange;
  /** When DiscordChatExporter wrote the file: the latest export's header names its channel. */
  exportedAt?: string;
  /** The id of the file's first message: parts of an export written newest first are read oldest part first. */
  firstMessageId?: string;
}

/** The export's files grouped by platform channel, in the order their messages are read. */
export interface DiscordPlan {
  /** Channel id → its files: its own (partitions in part order), then its threads' files by thread id. */
  channels: Map<string, DiscordFile[]>;
  threadIds: Set<string>;
  /** Files whose header cannot be read or is not DiscordChatExporter's: each is one rejected record. */
  unreadable: Array<{ file: string; field: string; problem: string }>;
  /** The first guild's id (not the DM pseudo-guild 0): the workspace in keys and properties. */
  workspace: string;
}

/**
 * Reads every file's header (not its messages) and decides where each file's messages go. A thread
 * whose parent channel is in the export becomes reply threads of that channel; one whose parent is not
 * becomes a channel of its own.
 */
export async function planDiscordExport(exp: SlackExport, files: readonly string[]): Promise<DiscordPlan> {
  const headers: Array<Omit<DiscordFile, 'channelId' | 'threadId'>> = [];
  const unreadable: DiscordPlan['unreadable'] = [];
  for (const file of [...files].sort(byPartition)) {
    let header;
    try {
      header = await readDiscordHeader(exp, file);
    } catch (error) {
      unreadable.push({ file, field: '', problem: (error as DiscordFileError).message });
      continue;
    }
    const guild = parseRecord(DiscordGuild, header.guild);
    const channel = parseRecord(DiscordChannel, header.channel);
    const unsendable = recordTextProblem({ guild: header.guild, channel: header.channel }, header.marks);
    if (unsendable) unreadable.push({ file, field: unsendable.field ?? '', problem: unsendable.reason });
    else if (!guild.ok) unreadable.push({ file, field: `guild.${guild.problem.field}`, problem: guild.problem.reason });
    else if (!channel.ok) unreadable.push({ file, field: `channel.${channel.problem.field}`, problem: channel.problem.reason });
    // Kept for the whole run: copies, so that they do not pin the parser's input chunks (detach-string.ts).
    else headers.push(structuredClone({ file, guild: guild.value, channel: channel.value, dateRange: header.dateRange, exportedAt: header.exportedAt, firstMessageId: header.firstMessageId }));
  }
  const own = new Set(headers.filter((h) => !THREAD_TYPES.has(h.channel.type)).map((h) => h.channel.id));
  const channels = new Map<string, DiscordFile[]>();
  const threads: DiscordFile[] = [];
  const threadIds = new Set<string>();
  for (const h of headers) {
    const parent = h.channel.categoryId;
    // A private thread is read by its invited people only: folded into its parent, every member of that channel would read it.
    if (THREAD_TYPES.has(h.channel.type) && h.channel.type !== PRIVATE_THREAD && parent && own.has(parent)) {
      threads.push({ ...h, channelId: parent, threadId: h.channel.id });
      threadIds.add(h.channel.id);
    } else {
      let list = channels.get(h.channel.id);
      if (!list) channels.set(h.channel.id, (list = []));
      list.push({ ...h, channelId: h.channel.id });
    }
  }
  for (const list of channels.values()) list.sort(byExport);
  threads.sort((a, b) => compareSnowflakes(a.threadId!, b.threadId!) || byExport(a, b));
  for (const t of threads) channels.get(t.channelId)!.push(t);
  const workspace = headers.find((h) => h.guild.id !== '0')?.guild.id ?? 'direct-messages';
  return { channels, threadIds, unreadable, workspace };
}

/** Snowflakes as numbers without losing digits: by length, then digit by digit. */
export function compareSnowflakes(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Files of one channel or thread: by the start of their date range, then by path (partitions in part
 * order). Two exports of one channel (`gen [600] (before 2023-03-01).json` and `gen [600] (2023-02-01 to
 * 2023-04-01).json`) are read earliest range first whatever their names, so the channel is in time
 * order; where the ranges overlap, the later file's messages are duplicates of the earlier's.
 */
function byExport(a: DiscordFile, b: DiscordFile): number {
  return rangeStart(a) - rangeStart(b) || byFirstMessage(a, b) || byPartition(a.file, b.file);
}

/**
 * Parts of one export, by their first message: in part order for an export written oldest first, oldest
 * part first for one written newest first (each part is read from its end). Whole exports of one range
 * start with the same message and stay in path order.
 */
function byFirstMessage(a: DiscordFile, b: DiscordFile): number {
  return a.firstMessageId === undefined || b.firstMessageId === undefined ? 0 : compareSnowflakes(a.firstMessageId, b.firstMessageId);
}

/** `dateRange.after` in ms; no start (a whole history, or only --before) is the earliest. */
function rangeStart(f: DiscordFile): number {
  const after = f.dateRange?.after;
  const ms = typeof after === 'string' ? Date.parse(after) : NaN;
  return Number.isNaN(ms) ? -Infinity : ms;
}

/** Paths in code point order, except that `name [part 10].json` follows `name [part 9].json` (--partition). */
function byPartition(a: string, b: string): number {
  const pa = /^(.*) \[part (\d+)\]\.json$/.exec(a);
  const pb = /^(.*) \[part (\d+)\]\.json$/.exec(b);
  if (pa && pb && pa[1] === pb[1]) return Number(pa[2]) - Number(pb[2]);
  const ka = pa ? `${pa[1]}.json` : a;
  const kb = pb ? `${pb[1]}.json` : b;
  return ka < kb ? -1 : ka > kb ? 1 : pa ? 1 : pb ? -1 : 0;
}

/**
 * The file whose header names a channel: of its own files (not its threads'), the latest export
 * (`exportedAt`), else the last read. A channel renamed between two exports has each name in one header;
 * Discord shows the current one.
 */
export function latestOwnFile(files: readonly DiscordFile[]): DiscordFile {
  const own = files.filter((f) => f.threadId === undefined);
  return latestExport(own.length > 0 ? own : files);
}

/** Of several files of one channel or thread, the latest export (`exportedAt`), else the last read: its header is current. */
export function latestExport(files: readonly DiscordFile[]): DiscordFile {
  const at = (f: DiscordFile) => (f.exportedAt === undefined ? NaN : Date.parse(f.exportedAt));
  // A file without the time (an older DiscordChatExporter) yields to one with it; ties go to the later read.
  const later = (latest: DiscordFile, f: DiscordFile) => (Number.isNaN(at(f)) ? Number.isNaN(at(latest)) : Number.isNaN(at(latest)) || at(f) >= at(latest));
  return files.reduce((latest, f) => (later(latest, f) ? f : latest), files[0]!);
}
