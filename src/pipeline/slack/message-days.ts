import { findConversationFolder, readConversationDays, type SlackExport } from '../../sources/slack/index.js';
import type { Outcome, PendingMessage, RepliesBeforeLateRoots, SlackMessageMapper } from '../../transform/slack/index.js';
import { DayWindow, DEFAULT_REORDER_WINDOW, type LateBeyondWindow, type MappedDay } from './day-order.js';
import type { SlackFirstPass } from './first-pass.js';

/** What the messages pass meets, in order. */
export type MessageDay =
  /**
   * A day file of a conversation, each message mapped (`outcomes` in ts order), with later day files'
   * messages earlier than its last (their positions name their own file: day-order.ts).
   */
  | { kind: 'mapped'; channelId: string; file: string; outcomes: Outcome<PendingMessage>[] }
  /** A day file that could not be read as a JSON array. */
  | { kind: 'unreadable'; file: string; problem: string }
  /** A day file in a folder no conversation list names: its messages are skipped. */
  | { kind: 'orphaned'; folder: string; file: string; messages: number }
  /** After a conversation's day files: messages filed later than the reorder window could take back. */
  | { kind: 'late'; channelId: string; late: LateBeyondWindow }
  /** After a conversation's day files: replies filed before their root further than the reorder window reaches (orphans). */
  | { kind: 'replies-before-late-roots'; channelId: string; replies: RepliesBeforeLateRoots };

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
 * last day); then the day files of folders no conversation names. A conversation's mapped day files are
 * held in a window (the two newest day files, and earlier ones up to `reorderWindow` messages), as later ones may hold
 * messages earlier than their last (day-order.ts).
 */
export async function* readMessageDays(first: SlackFirstPass, exp: SlackExport, mapper: SlackMessageMapper, owns: FolderOwner = () => true, reorderWindow = DEFAULT_REORDER_WINDOW): AsyncGenerator<MessageDay> {
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
    const window = new DayWindow<PendingMessage>(reorderWindow);
    const mapped = (day: MappedDay<PendingMessage>): MessageDay => {
      // The later day files the window held are mapped: a root one of them holds is met (a reply filed before it goes into its thread).
      mapper.settleMissingRoots(channel.id, day.outcomes);
      return { kind: 'mapped', channelId: channel.id, file: day.file, outcomes: day.outcomes };
    };
    for await (const day of readConversationDays(exp, files)) {
      while (at < files.length && files[at] !== day.file) at++;
      if ('problem' in day) {
        yield { kind: 'unreadable', file: day.file, problem: day.problem };
        continue;
      }
      const outcomes = mapper.mapDay(channel.id, day.file, day.messages, day, laterDayOf(files, at));
      for (const out of window.add({ file: day.file, outcomes })) yield mapped(out);
    }
    for (const out of window.finish()) yield mapped(out);
    if (window.late !== undefined) yield { kind: 'late', channelId: channel.id, late: window.late };
    const repliesBeforeLateRoots = mapper.repliesBeforeLateRoots(channel.id);
    if (repliesBeforeLateRoots !== undefined) yield { kind: 'replies-before-late-roots', channelId: channel.id, replies: repliesBeforeLateRoots };
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
