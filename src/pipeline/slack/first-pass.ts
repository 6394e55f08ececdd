import { stat } from 'node:fs/promises';
import type { SlackSourceConfig } from '../../config/index.js';
import {
  assertNoGridWorkspaces,
  listConversationFolders,
  openSlackExport,
  readConversationDays,
  readSlackConversations,
  readSlackUsers,
  type SlackExport,
} from '../../sources/slack/index.js';
import { recordTextProblem } from '../../shared/json-checks/export-text.js';
import { createSlackDirectoryBuilder, mayNameUnknownAuthor, type SlackDirectory } from '../../transform/slack/index.js';

/** What pass 1 learns: the directory (users, placeholders, channels) and the export's conversation folders. */
export interface SlackFirstPass {
  directory: SlackDirectory;
  /** Folder name → its day files in date order. */
  folders: Map<string, string[]>;
  /** `users.json`, or `org_users.json` in an Enterprise Grid export without the former. */
  usersFile: string;
}

/**
 * Pass 1 (docs/slack-migration.md): users, conversation lists, then every day file one at a time, only
 * to find the authors users.json lacks (parsing only the files a look at their text cannot clear). Holds one day file at a time; the result grows with users and
 * channels, never with messages.
 */
export async function readSlackFirstPass(exp: SlackExport, slack: SlackSourceConfig, signal?: AbortSignal): Promise<SlackFirstPass> {
  assertNoGridWorkspaces(exp);
  const builder = createSlackDirectoryBuilder(slack.teamId === undefined ? {} : { teamId: slack.teamId });
  for await (const user of readSlackUsers(exp)) builder.addUser({ file: user.file, index: user.index }, user.value, user.marks);
  for await (const conv of readSlackConversations(exp)) builder.addConversation(conv.kind, { file: conv.file, index: conv.index }, conv.value, conv.marks);
  const folders = listConversationFolders(exp);
  const worthParsing = (text: string) => mayNameUnknownAuthor(text, builder.known);
  for (const days of folders.values())
    for await (const day of readConversationDays(exp, days, {}, { worthParsing })) {
      signal?.throwIfAborted();
      // A message the messages pass rejects for its text names no author: a placeholder named from it would carry that text.
      if ('messages' in day) day.messages.forEach((message, index) => recordTextProblem(message, day) || builder.noteMessage({ file: day.file, index }, message));
    }
  return { directory: builder.build(), folders, usersFile: exp.has('users.json') ? 'users.json' : 'org_users.json' };
}

interface CacheEntry {
  signature: string;
  pass: Promise<SlackFirstPass>;
}

/**
 * Every stage of a run, and the channel-id lookup after the channels stage, need the same pass 1; it
 * reads every day file, so it runs once per pipeline config (one run) and export state, not once per
 * stage. A new process (a resumed run) runs it again: it is deterministic, so the chunks come out the
 * same. Keyed weakly by the config, so a finished run's directory is freed with its config.
 */
const cache = new WeakMap<object, Map<string, CacheEntry>>();

/** Pass 1 of the export `slack` names, shared by the stages of one run. */
export async function slackFirstPassFor(config: object, slack: SlackSourceConfig, signal?: AbortSignal): Promise<SlackFirstPass> {
  const signature = await exportSignature(slack.export);
  const optionsKey = JSON.stringify([slack.export, slack.teamId ?? null]);
  let byExport = cache.get(config);
  if (byExport === undefined) cache.set(config, (byExport = new Map()));
  const cached = byExport.get(optionsKey);
  if (cached !== undefined && cached.signature === signature) return cached.pass;

  const pass = (async () => {
    const exp = await openSlackExport(slack.export);
    try {
      return await readSlackFirstPass(exp, slack, signal);
    } finally {
      await exp.close();
    }
  })();
  byExport.set(optionsKey, { signature, pass });
  // A failed or interrupted pass must not be served to the next caller.
  pass.catch(() => byExport.delete(optionsKey));
  return pass;
}

/** Size and modification time: a re-written zip (or a folder whose listing changed) is read again. */
async function exportSignature(path: string): Promise<string> {
  const s = await stat(path).catch(() => undefined);
  return s === undefined ? 'missing' : `${s.size}:${s.mtimeMs}`;
}
