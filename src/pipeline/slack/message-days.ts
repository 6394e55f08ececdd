import { findConversationFolder, readConversationDays, type SlackExport } from '../../sources/slack/index.js';
import type { Outcome, PendingMessage, SlackMessageMapper } from '../../transform/slack/index.js';
import { withEarlierOfNext } from './day-order.js';
import type { SlackFirstPass } from './first-pass.js';

/** What the messages pass meets, in order. */
export type MessageDay =
  /**
   * A day file of a conversation, each message mapped (`outcomes` in ts order), with the next day file's
   * messages earlier than its last (their positions name that file: day-order.ts).
   */
  | { kind: 'mapped'; channelId: string; file: string; outcomes: Outcome<PendingMessage>[] }
  /** A day file that could not be read as a JSON array. */
  | { kind: 'unreadable'; file: string; problem: string }
  /** A day file in a folder no conversation list names: its messages are skipped. */
  | { kind: 'orphaned'; folder: string; file: string; messages: number };

/** The date of the day file after `files[at]`, or null when it is the last (no name that is a date: no date, ''). */
function laterDayOf(files: readonly string[], at: number): string | null {
  const next = files[at + 1];
  if (next === undefined) return null;
  return /(\d{4}-\d{2}-\d{2})\.json$/.exec(next)?.[1] ?? '';
}

/** Whether this process reads a conversation (by its channel id) or an orphaned folder (by its name). */
export type FolderOwner = (what: { channelId: string } | { folder: string }) => boolean;

/**
 * Pass 2 over the messages (docs/slack-migration.md): conversation by conversation in directory order,
 * each one's day files in date order, mapped one day file at a time (the channel's state freed after its
 * last day); then the day files of folders no conversation names. A day file's outcomes are held until
 * the conversation's next day file is mapped, which may hold messages earlier than its last (day-order.ts):
 * two day files at a time.
 */
export async function* readMessageDays(first: SlackFirstPass, exp: SlackExport, mapper: SlackMessageMapper, owns: FolderOwner = () => true): AsyncGenerator<MessageDay> {
  const { directory, folders } = first;
  const used = new Set<string>();
  for (const channel of directory.channels.values()) {
    const folder = findConversationFolder(folders, { id: channel.id, name: channel.record.name });
    if (folder === undefined) continue;
    used.add(folder);
    // A sharded run: another shard's conversation is never opened (docs/sharding.md).
    if (!owns({ channelId: channel.id })) continue;
    const files = folders.get(folder)!;
    let at = 0;
    let held: { file: string; outcomes: Outcome<PendingMessage>[] } | undefined;
    for await (const day of readConversationDays(exp, files)) {
      while (at < files.length && files[at] !== day.file) at++;
      if ('problem' in day) {
        yield { kind: 'unreadable', file: day.file, problem: day.problem };
        continue;
      }
      const outcomes = mapper.mapDay(channel.id, day.file, day.messages, day, laterDayOf(files, at));
      if (held !== undefined) yield { kind: 'mapped', channelId: channel.id, file: held.file, outcomes: withEarlierOfNext(held.outcomes, outcomes) };
      held = { file: day.file, outcomes };
    }
    if (held !== undefined) yield { kind: 'mapped', channelId: channel.id, file: held.file, outcomes: held.outcomes };
    mapper.endChannel(channel.id);
  }
  for (const [folder, days] of folders) {
    if (used.has(folder) || !owns({ folder })) continue;
    for await (const day of readConversationDays(exp, days)) {
      if ('problem' in day) yield { kind: 'unreadable', file: day.file, problem: day.problem };
      else yield { kind: 'orphaned', folder, file: day.file, messages: day.messages.length };
    }
  }
}
