import { DiscordFileError, discordChannelFiles, openDiscordExport, readDiscordMessages } from '../../sources/discord/channel-file.js';
import type { SlackExport } from '../../sources/slack/index.js';
import type { ChatDirectory, ChatDirectoryBuilder, MessageOutcome } from '../../transform/chat-export/index.js';
import { DiscordMessage, DiscordMessagePeople, ReplyRoots, THREAD_STARTER, THREAD_TYPES, deletedStarterRoot, discordChannel, discordMessage, noteReplyChain, snowflakeTimeMs, threadCreatedFor, type DiscordMessageContext } from '../../transform/discord/index.js';
import { parseRecord } from '../../transform/slack/records.js';
import type { ChatExportAdapter } from '../chat-export/adapter.js';
import { chatExportReader } from '../chat-export/read-stage.js';
import type { PlatformExportReader } from '../platform-export/types.js';
import { AnsweredSystemMessages } from './answered-system.js';
import { coveredByOwnFiles } from './deleted-starters.js';
import { HeldReplies } from './held-replies.js';
import { exportsOf, mergeExports } from './merged-exports.js';
import { LatestUsers } from './latest-users.js';
import { latestExport, latestOwnFile, planDiscordExport, type DiscordFile, type DiscordPlan } from './plan.js';

/** DiscordChatExporter JSON exports as pipeline stages (docs/discord-migration.md). */
const discordAdapter: ChatExportAdapter = {
  name: 'Discord export',
  async open(path) {
    const exp = await openDiscordExport(path);
    const files = discordChannelFiles(exp);
    let plan: Promise<DiscordPlan> | undefined;
    const planned = () => (plan ??= planDiscordExport(exp, files));
    return {
      origin: path,
      scan: async (builder, signal) => scanDiscord(exp, await planned(), builder, signal),
      messages: (directory, owns, signal) => discordMessages(exp, planned, directory, owns, signal),
      close: () => exp.close(),
    };
  },
};

export const discordExportReader: PlatformExportReader = chatExportReader(discordAdapter);

/**
 * Pass 1: every file's messages streamed once for their authors, mentioned and reacting users (an export
 * has no user list; each as their latest message has them); a channel's members are the people who wrote
 * in it or its threads. A channel with thread files also has its reply chains followed, so that the
 * messages pass knows, before it meets them, which inline replies go into a thread that a file feeds (a
 * thread opened on a reply joins its chain), and which threads lost their starter. The system messages a
 * reply answers are noted, to be kept under `systemMessages: skip`.
 */
async function scanDiscord(exp: SlackExport, plan: DiscordPlan, builder: ChatDirectoryBuilder, signal?: AbortSignal): Promise<void> {
  builder.setWorkspace(plan.workspace);
  const users = new LatestUsers(builder);
  for (const [channelId, files] of plan.channels) {
    const authors = new Set<string>();
    const chains = files.some((f) => f.threadId !== undefined) ? new ReplyRoots() : undefined;
    const starts = new ThreadStarts(new Set(files.flatMap((f) => (f.threadId === undefined ? [] : [f.threadId]))));
    const answered = new AnsweredSystemMessages(channelId, (id) => builder.markAnswered(id));
    // A record of the channel that cannot be read may be a thread's starter: none is then taken as deleted.
    let damaged = plan.unreadable.length > 0;
    for (const f of files)
      for await (const { key, value } of messagesOf(exp, f, signal, () => f.threadId === undefined && (damaged = true))) {
        if (f.threadId === undefined) answered.note(value);
        if (chains && f.threadId === undefined) {
          noteChainOf(value, channelId, chains);
          starts.note(value, plan.threadIds);
        }
        const parsed = parseRecord(DiscordMessagePeople, value);
        if (!parsed.ok) continue;
        const m = parsed.value;
        const at = { file: f.file, index: key };
        const id = (value as { id?: unknown }).id;
        const messageId = typeof id === 'string' && /^\d{1,20}$/.test(id) ? id : undefined;
        const add = (u: typeof m.author) => users.note(u, messageId, at);
        add(m.author);
        authors.add(m.author.id);
        for (const u of m.mentions ?? []) add(u);
        for (const r of m.reactions ?? []) for (const u of r.users ?? []) add(u);
      }
    for (const f of files) {
      const root = f.threadId === undefined ? undefined : starts.announcedBy(f.threadId) ?? chains!.rootOf(f.threadId);
      if (root !== undefined && root !== f.threadId) builder.setThreadRoot(f.threadId!, root);
      else if (root !== undefined && !damaged && starts.lostStarter(root) && coveredByOwnFiles(files, snowflakeTimeMs(root))) builder.markStarterDeleted(root);
    }
    const own = latestOwnFile(files);
    // A thread whose parent channel is not in the export, or a private one, is a channel of its own.
    builder.addChannel(discordChannel(own.guild, own.channel, [...authors], { file: own.file, index: 0 }, THREAD_TYPES.has(own.channel.type)));
  }
}

/**
 * Which of a channel's threads were started without a message: no message of the channel's own files has
 * the thread's id, and a `ThreadCreated` message announces it. That note is the thread's root.
 */
class ThreadStarts {
  private readonly withMessage = new Set<string>();
  private readonly recorded = new Set<string>();
  private readonly announced = new Map<string, string>();
  constructor(private readonly threads: ReadonlySet<string>) {}
  note(value: unknown, threadIds: ReadonlySet<string>): void {
    // Any record of the starter, even one the messages pass rejects: its thread is not given another root.
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && this.threads.has(id)) this.recorded.add(id);
    const message = validMessage(value);
    if (message === undefined) return;
    if (this.threads.has(message.id)) this.withMessage.add(message.id);
    const thread = threadCreatedFor(message, threadIds);
    if (thread !== undefined && this.threads.has(thread) && !this.announced.has(thread)) this.announced.set(thread, message.id);
  }
  /** A thread whose starter no record of the channel has and no `ThreadCreated` note stands for. */
  lostStarter(threadId: string): boolean {
    return !this.recorded.has(threadId) && !this.announced.has(threadId);
  }
  /** The `ThreadCreated` message that roots a thread started without a message, if any. */
  announcedBy(threadId: string): string | undefined {
    return this.withMessage.has(threadId) ? undefined : this.announced.get(threadId);
  }
}

/** A channel file's message in its channel's reply chains, as the messages pass notes it (only messages it takes). */
function noteChainOf(value: unknown, channelId: string, chains: ReplyRoots): void {
  const message = validMessage(value);
  if (message !== undefined && message.type !== THREAD_STARTER) noteReplyChain(message, channelId, chains);
}

/**
 * A file's messages one by one; a file that breaks off mid-way simply ends (pass 2 reports it). Messages
 * pass 2 rejects for their text are left out: a user taken from one would carry that text. `damaged` is
 * told of each record left out and of a break.
 */
async function* messagesOf(exp: SlackExport, f: DiscordFile, signal: AbortSignal | undefined, damaged: () => void): AsyncGenerator<{ key: number; value: unknown }> {
  try {
    for await (const batch of readDiscordMessages(exp, f.file)) {
      signal?.throwIfAborted();
      for (const message of batch) if (!message.unreadable) yield message;
      else damaged();
    }
  } catch (error) {
    if (!(error instanceof DiscordFileError)) throw error;
    damaged();
  }
}

/**
 * Pass 2: channel by channel, its own files, then its threads' files by thread id, each file's messages in
 * file order. Thread files feeding one reply thread (a thread and the threads opened on replies in its
 * chain) are read together, merged by time; inline replies into such a thread wait and are taken in by time.
 */
async function* discordMessages(
  exp: SlackExport,
  planned: () => Promise<DiscordPlan>,
  directory: ChatDirectory,
  owns: (channelId: string) => boolean,
  signal?: AbortSignal,
): AsyncGenerator<MessageOutcome[]> {
  const plan = await planned();
  for (const u of plan.unreadable) yield [{ kind: 'rejected', position: { file: u.file, index: 0 }, field: u.field || '(file)', expected: 'a DiscordChatExporter JSON channel file', reason: u.problem, raw: null }];
  const context: DiscordMessageContext = {
    names: { user: (id) => directory.users.get(id)?.username, channel: (id) => directory.channels.get(id)?.name ?? directory.channels.get(id)?.source.name },
    threadIds: plan.threadIds,
    roots: new ReplyRoots(),
    threadRoots: directory.threadRoots,
    answeredSystemMessages: directory.answeredSystemMessages,
  };
  const rootOfThread = (id: string) => directory.threadRoots.get(id) ?? id;
  for (const [channelId, files] of plan.channels) {
    // A sharded run: another shard's channel is never opened (docs/sharding.md).
    if (!owns(channelId)) continue;
    context.roots.clear();
    const threadFiles = files.filter((f) => f.threadId !== undefined);
    const held = new HeldReplies(new Set(threadFiles.map((f) => rootOfThread(f.threadId!))));
    // A thread's messages go into its root's reply thread (pass 1 found it: a reply chain's root, a ThreadCreated note).
    for (const f of threadFiles) if (rootOfThread(f.threadId!) !== f.threadId) context.roots.note(f.threadId!, rootOfThread(f.threadId!));
    const read = (f: DiscordFile) => fileMessages(exp, f, context, signal);
    // Several exports of the channel are merged by time, a message two of them hold taken once (merged-exports.ts).
    const own = exportsOf(files.filter((f) => f.threadId === undefined), read);
    const roots = directory.deletedThreadStarters.size === 0 ? [] : [{ from: '', exportedAt: NaN, read: () => deletedStarterRoots(threadFiles, directory.deletedThreadStarters) }];
    for await (const batch of mergeExports([...own, ...roots])) yield batch.filter((outcome) => !held.hold(outcome));
    for (const group of byRoot(threadFiles, rootOfThread))
      for await (const batch of mergeExports(exportsOf(group, read))) yield batch.flatMap((outcome) => held.before(outcome));
    const rest = held.rest();
    if (rest.length > 0) yield rest;
  }
}

/**
 * The roots put where the channel's deleted thread starters were, in time order (thread ids are
 * snowflakes: by id is by time). No file holds one: each is the one record of a place named by its thread's
 * latest file (whose header names the thread) and the starter's id, which reports show as its file.
 */
async function* deletedStarterRoots(threadFiles: DiscordFile[], deleted: ReadonlySet<string>): AsyncGenerator<MessageOutcome[]> {
  const seen = new Set<string>();
  const roots: MessageOutcome[] = [];
  for (const { threadId } of threadFiles) {
    if (!deleted.has(threadId!) || seen.has(threadId!)) continue;
    seen.add(threadId!);
    // A thread renamed between two exports of it: Discord shows its current name, its latest export's.
    const f = latestExport(threadFiles.filter((t) => t.threadId === threadId));
    roots.push(deletedStarterRoot(f.channel, f.channelId, { file: `${f.file}, message ${f.threadId!} (its deleted starter: the root chatport puts in its place)`, index: 0 }));
  }
  if (roots.length > 0) yield roots;
}

/** Thread files grouped by the reply thread they feed, in the order of each group's first file. */
function byRoot(files: DiscordFile[], rootOf: (threadId: string) => string): DiscordFile[][] {
  const groups = new Map<string, DiscordFile[]>();
  for (const f of files) {
    const root = rootOf(f.threadId!);
    groups.set(root, [...(groups.get(root) ?? []), f]);
  }
  return [...groups.values()];
}

async function* fileMessages(exp: SlackExport, f: DiscordFile, context: DiscordMessageContext, signal?: AbortSignal): AsyncGenerator<MessageOutcome[]> {
  const placement = { channelId: f.channelId, ...(f.threadId ? { threadId: f.threadId } : {}) };
  let next = 0;
  try {
    for await (const batch of readDiscordMessages(exp, f.file)) {
      signal?.throwIfAborted();
      const out: MessageOutcome[] = [];
      for (const { key, value, unreadable } of batch) {
        next = key + 1;
        const position = { file: f.file, index: key };
        out.push(
          unreadable
            ? { kind: 'rejected', position, field: unreadable.field ?? '', expected: unreadable.expected, reason: unreadable.reason, raw: unreadable.raw, channelId: f.channelId }
            : messageOutcome(value, position, placement, context),
        );
      }
      yield out;
    }
  } catch (error) {
    if (!(error instanceof DiscordFileError)) throw error;
    // The rest of the file cannot be read: one rejected record says so (the messages before it are in).
    yield [{ kind: 'rejected', position: { file: f.file, index: next }, field: '(file)', expected: 'the rest of a JSON channel file', reason: error.message, raw: null, channelId: f.channelId }];
  }
}

/** The message when it is one the messages pass takes: a DiscordChatExporter message with a readable time. */
function validMessage(value: unknown): DiscordMessage | undefined {
  const parsed = parseRecord(DiscordMessage, value);
  return parsed.ok && hasReadableTime(parsed.value) ? parsed.value : undefined;
}

const hasReadableTime = (message: DiscordMessage) => !Number.isNaN(Date.parse(message.timestamp));

function messageOutcome(value: unknown, position: { file: string; index: number }, placement: { channelId: string; threadId?: string }, context: DiscordMessageContext): MessageOutcome {
  const parsed = parseRecord(DiscordMessage, value);
  if (!parsed.ok) return { kind: 'rejected', position, field: parsed.problem.field, expected: 'a DiscordChatExporter message', reason: parsed.problem.reason, raw: value, channelId: placement.channelId };
  if (!hasReadableTime(parsed.value))
    return { kind: 'rejected', position, field: 'timestamp', expected: 'an ISO 8601 time', reason: JSON.stringify(parsed.value.timestamp), raw: value, channelId: placement.channelId };
  return discordMessage(parsed.value, placement, context, position);
}
