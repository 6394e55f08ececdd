import { DiscordFileError, discordChannelFiles, openDiscordExport, readDiscordMessages } from '../../sources/discord/channel-file.js';
import type { SlackExport } from '../../sources/slack/index.js';
import type { ChatDirectory, ChatDirectoryBuilder, MessageOutcome } from '../../transform/chat-export/index.js';
import { DiscordMessage, DiscordMessagePeople, ReplyRoots, THREAD_TYPES, discordChannel, discordMessage, discordUser, type DiscordMessageContext } from '../../transform/discord/index.js';
import { parseRecord } from '../../transform/slack/records.js';
import type { ChatExportAdapter } from '../chat-export/adapter.js';
import { chatExportReader } from '../chat-export/read-stage.js';
import type { PlatformExportReader } from '../platform-export/types.js';
import { HeldReplies } from './held-replies.js';
import { planDiscordExport, type DiscordFile, type DiscordPlan } from './plan.js';

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
 * has no user list); a channel's members are the people who wrote in it or its threads.
 */
async function scanDiscord(exp: SlackExport, plan: DiscordPlan, builder: ChatDirectoryBuilder, signal?: AbortSignal): Promise<void> {
  builder.setWorkspace(plan.workspace);
  for (const files of plan.channels.values()) {
    const authors = new Set<string>();
    for (const f of files)
      for await (const { key, value } of messagesOf(exp, f, signal)) {
        const parsed = parseRecord(DiscordMessagePeople, value);
        if (!parsed.ok) continue;
        const m = parsed.value;
        const at = { file: f.file, index: key };
        // The first record of a user wins; later ones are not even mapped (pass 1 meets each author often).
        const add = (u: typeof m.author) => builder.hasUser(u.id) || builder.addUser(discordUser(u, at));
        add(m.author);
        authors.add(m.author.id);
        for (const u of m.mentions ?? []) add(u);
        for (const r of m.reactions ?? []) for (const u of r.users ?? []) add(u);
      }
    const own = files[0]!;
    // A thread whose parent channel is not in the export is a channel of its own.
    builder.addChannel(discordChannel(own.guild, own.channel, [...authors], { file: own.file, index: 0 }, THREAD_TYPES.has(own.channel.type)));
  }
}

/** A file's messages one by one; a file that breaks off mid-way simply ends (pass 2 reports it). */
async function* messagesOf(exp: SlackExport, f: DiscordFile, signal?: AbortSignal): AsyncGenerator<{ key: number; value: unknown }> {
  try {
    for await (const batch of readDiscordMessages(exp, f.file)) {
      signal?.throwIfAborted();
      yield* batch;
    }
  } catch (error) {
    if (!(error instanceof DiscordFileError)) throw error;
  }
}

/** Pass 2: channel by channel (its own files, then its threads'), each file's messages in file order. */
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
  };
  for (const [channelId, files] of plan.channels) {
    // A sharded run: another shard's channel is never opened (docs/sharding.md).
    if (!owns(channelId)) continue;
    context.roots.clear();
    const held = new HeldReplies(plan.threadIds);
    for (const f of files) yield* fileMessages(exp, f, context, held, signal);
    const rest = held.rest();
    if (rest.length > 0) yield rest;
  }
}

async function* fileMessages(exp: SlackExport, f: DiscordFile, context: DiscordMessageContext, held: HeldReplies, signal?: AbortSignal): AsyncGenerator<MessageOutcome[]> {
  const placement = { channelId: f.channelId, ...(f.threadId ? { threadId: f.threadId } : {}) };
  let next = 0;
  try {
    for await (const batch of readDiscordMessages(exp, f.file)) {
      signal?.throwIfAborted();
      const out: MessageOutcome[] = [];
      for (const { key, value, unreadable } of batch) {
        next = key + 1;
        const position = { file: f.file, index: key };
        const outcome: MessageOutcome = unreadable
          ? { kind: 'rejected', position, field: unreadable.field ?? '', expected: 'text in UTF-8', reason: unreadable.reason, raw: unreadable.raw, channelId: f.channelId }
          : messageOutcome(value, position, placement, context);
        // Inline replies into a thread with a file of its own wait for it; that file's messages take them in by time.
        if (f.threadId !== undefined) out.push(...held.before(outcome));
        else if (!held.hold(outcome)) out.push(outcome);
      }
      yield out;
    }
  } catch (error) {
    if (!(error instanceof DiscordFileError)) throw error;
    // The rest of the file cannot be read: one rejected record says so (the messages before it are in).
    yield [{ kind: 'rejected', position: { file: f.file, index: next }, field: '(file)', expected: 'the rest of a JSON channel file', reason: error.message, raw: null, channelId: f.channelId }];
  }
}

function messageOutcome(value: unknown, position: { file: string; index: number }, placement: { channelId: string; threadId?: string }, context: DiscordMessageContext): MessageOutcome {
  const parsed = parseRecord(DiscordMessage, value);
  if (!parsed.ok) return { kind: 'rejected', position, field: parsed.problem.field, expected: 'a DiscordChatExporter message', reason: parsed.problem.reason, raw: value, channelId: placement.channelId };
  if (Number.isNaN(Date.parse(parsed.value.timestamp)))
    return { kind: 'rejected', position, field: 'timestamp', expected: 'an ISO 8601 time', reason: JSON.stringify(parsed.value.timestamp), raw: value, channelId: placement.channelId };
  return discordMessage(parsed.value, placement, context, position);
}
