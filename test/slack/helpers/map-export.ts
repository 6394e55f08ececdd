import { readSlackFirstPass } from '../../../src/pipeline/slack/first-pass.js';
import { readMessageDays } from '../../../src/pipeline/slack/message-days.js';
import type { SlackExport } from '../../../src/sources/slack/index.js';
import {
  createSlackMappingContext,
  createSlackMessageMapper,
  mapSlackChannels,
  mapSlackMembers,
  mapSlackUsers,
  type Outcome,
  type PendingMember,
  type PendingMessage,
  type PlannedChannel,
  type SlackDirectory,
  type SlackDirectoryOptions,
  type SlackMappingOptions,
} from '../../../src/transform/slack/index.js';
import type { UserImportItem } from '../../../src/wire/imports.js';

/** A day file that could not be read as a JSON array. */
export interface DayProblem {
  file: string;
  problem: string;
}

export interface MappedExport {
  directory: SlackDirectory;
  users: UserImportItem[];
  channels: PlannedChannel[];
  members: PendingMember[];
  /** One outcome per source message, channel by channel. */
  messages: Outcome<PendingMessage>[];
  dayProblems: DayProblem[];
}

/**
 * The composition the pipeline performs (see docs/slack-migration.md), collected into arrays for tests:
 * pass 1 reads users, conversation lists and every day file once (to find authors users.json lacks);
 * pass 2 maps users, channels, members, then messages channel by channel, day file by day file.
 * Messages in folders no conversation list names are skipped with a reason.
 */
export async function mapSlackExport(exp: SlackExport, options: SlackMappingOptions & SlackDirectoryOptions = {}): Promise<MappedExport> {
  // Pass 1 is the pipeline's own (src/pipeline/slack/first-pass.ts); `export` only keys its cache.
  const first = await readSlackFirstPass(exp, { export: '', systemMessages: options.systemMessages ?? 'import', ...(options.teamId ? { teamId: options.teamId } : {}) });

  const { directory } = first;
  const context = createSlackMappingContext(directory, options);
  const result: MappedExport = { directory, users: [...mapSlackUsers(context)], channels: [...mapSlackChannels(context)], members: [...mapSlackMembers(context)], messages: [], dayProblems: [] };
  for await (const day of readMessageDays(first, exp, createSlackMessageMapper(context))) {
    if (day.kind === 'mapped') result.messages.push(...day.outcomes);
    else if (day.kind === 'unreadable') result.dayProblems.push({ file: day.file, problem: day.problem });
    else if (day.kind === 'orphaned')
      for (let index = 0; index < day.messages; index++)
        result.messages.push({ outcome: 'skipped', position: { file: day.file, index }, reason: `folder ${day.folder} belongs to no conversation in channels/groups/dms/mpims.json` });
  }
  return result;
}
