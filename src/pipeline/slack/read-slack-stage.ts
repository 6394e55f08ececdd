import type { PipelineConfig, ShardSpec, SlackSourceConfig, StageConfig } from '../../config/index.js';
import { listUnrecognizedFiles, openSlackExport, type SlackExport } from '../../sources/slack/index.js';
import { idempotencyKeysOf, withIdentityProperties, type ChannelIdLookup, type Processed, type StageKind } from '../../transform/index.js';
import {
  compareTs,
  createSlackMappingContext,
  createSlackMessageMapper,
  mapSlackChannel,
  mapSlackMembers,
  mapSlackUser,
  missingRootOf,
  slackSourceKey,
  underFoundRoot,
  type SlackMappingContext,
  type Outcome,
  type PendingMessage,
  type RepliesBeforeLateRoots,
  type SlackMessageMapper,
} from '../../transform/slack/index.js';
import type { EarlierRoots } from '../import/replies/earlier-roots.js';
import { slackFirstPassFor, type SlackFirstPass } from './first-pass.js';
import { readMessageDays, type FolderOwner } from './message-days.js';
import { DEFAULT_REORDER_WINDOW, type LateBeyondWindow } from './day-order.js';
import { ownsChannel } from '../shards/shard-filter.js';
import { acceptItem, positionIn, processedOfOutcome, rejectedDayFile, rejectedRecord } from './processed.js';
import { inBatches } from '../platform-export/in-batches.js';

export interface SlackStageDeps {
  /** Members and messages: channel source key (`<team>/<channel id>`) → platform id. */
  channelIds?: ChannelIdLookup;
  signal?: AbortSignal;
  /** Told what the reader could not do as documented, though every record is accounted for (a run warning). */
  onReaderWarning?: (message: string) => void;
  /** Roots earlier runs of the state folder imported: a reply to one goes into its thread, not the channel. */
  earlierRoots?: EarlierRoots;
}

/**
 * One stage of a Slack export as Processed records, in a deterministic order (a resumed run rebuilds
 * the same chunks). Users: users.json order, then placeholders. Channels: channels, groups, mpims, dms.
 * Members: channel by channel. Messages: channel by channel, day file by day file, each sorted by ts (with
 * the next day file's messages earlier than its last: message-days.ts), so thread replies come after their roots; a message split at the body limit gives one record per part.
 * read = imported + rejected + skipped holds per record (a part is a record; docs/slack-migration.md).
 * In batches, as the import's stage runner takes records: a day file's messages, or up to 512 users,
 * channels or memberships.
 */
export async function* readSlackStageBatches(config: PipelineConfig, stage: StageConfig, slack: SlackSourceConfig, deps: SlackStageDeps = {}): AsyncGenerator<Processed[]> {
  const first = await slackFirstPassFor(config, slack, deps.signal);
  const keys = new SourceKeys();
  // One key maker per kind: the pipeline id and kind are serialized once, not for every item.
  const keyMakers = new Map<StageKind, (sourceKey: string) => string>();
  const context = createSlackMappingContext(first.directory, {
    keyFor: (kind, sourceKey) => {
      let make = keyMakers.get(kind);
      if (make === undefined) keyMakers.set(kind, (make = idempotencyKeysOf(config.id, kind)));
      return make(keys.note(sourceKey));
    },
    systemMessages: slack.systemMessages,
    // Flattened replies stand in the channel themselves: a broadcast reply then needs no channel copy.
    broadcastCopies: stage.options.threads !== 'flatten',
    ...(slack.maxTrackedThreadRoots === undefined ? {} : { maxTrackedThreadRoots: slack.maxTrackedThreadRoots }),
  });
  const reader = { origin: slack.export, first, context, keys, pipelineId: config.id, reorderWindow: slack.reorderWindow ?? DEFAULT_REORDER_WINDOW };
  switch (stage.stage) {
    case 'users':
      yield* inBatches(readUsers(reader));
      return;
    case 'channels':
      yield* inBatches(readChannels(reader));
      return;
    case 'members':
      yield* inBatches(readMembers(reader, lookupOf(deps, 'members')));
      return;
    case 'messages': {
      // Pass 1's day-file lists already hold every day file's name: the export shares those strings.
      const knownPaths = new Map<string, string>();
      for (const days of first.folders.values()) for (const day of days) knownPaths.set(day, day);
      const exp = await openSlackExport(slack.export, { knownPaths });
      knownPaths.clear();
      try {
        yield* readMessages(reader, exp, lookupOf(deps, 'messages'), config.shard, deps);
      } finally {
        await exp.close();
      }
    }
  }
}

/** A shard's conversations: by the channel's source key, as every stage assigns channels; orphaned folders by name. */
function folderOwner(shard: ShardSpec | undefined, teamId: string): FolderOwner | undefined {
  if (shard === undefined) return undefined;
  return (what) => ownsChannel(shard, 'channelId' in what ? slackSourceKey.channel(teamId, what.channelId) : `${teamId}/orphaned-folder/${what.folder}`);
}



interface Reader {
  origin: string;
  first: SlackFirstPass;
  context: SlackMappingContext;
  keys: SourceKeys;
  pipelineId: string;
  reorderWindow: number;
}

/**
 * The mapping makes every item's key through `keyFor`, in item order; the source keys it passes are
 * the records' `sourceKey`s. Noted per mapping call (one user, one channel, one day file), then taken
 * in the same order.
 */
class SourceKeys {
  private keys: string[] = [];
  private next = 0;

  note(sourceKey: string): string {
    this.keys.push(sourceKey);
    return sourceKey;
  }

  take(): string {
    const key = this.keys[this.next++];
    if (key === undefined) throw new Error('the Slack mapping made an item without a key');
    return key;
  }

  /** Call before each mapping call. */
  reset(): void {
    this.keys.length = 0;
    this.next = 0;
  }
}

function lookupOf(deps: SlackStageDeps, stage: string): ChannelIdLookup {
  if (deps.channelIds === undefined) throw new TypeError(`the Slack ${stage} stage needs deps.channelIds`);
  return deps.channelIds;
}

function* readUsers({ origin, first, context, keys, pipelineId }: Reader): Generator<Processed> {
  const rejected = first.directory.rejected.filter((r) => r.stage === 'users');
  const rejectedIndexes = new Set(rejected.map((r) => r.position.index));
  for (const r of rejected) yield rejectedRecord(origin, r);
  // users.json members come first, in file order: their index is the next one pass 1 did not reject.
  let index = 0;
  for (const user of first.directory.users.values()) {
    keys.reset();
    const item = mapSlackUser(user, context);
    let position;
    if (user.placeholder === undefined) {
      while (rejectedIndexes.has(index)) index++;
      position = positionIn(origin, { file: first.usersFile, index: index++ });
    } else position = positionIn(origin, placeholderPosition(user.placeholder.firstSeenIn));
    const sourceKey = keys.take();
    // Found again before a later run's users stage by these properties, as for every pipeline (docs/identity.md).
    item.properties = withIdentityProperties(item.properties, pipelineId, sourceKey) as typeof item.properties;
    yield acceptItem('users', item as Record<string, unknown>, position, sourceKey);
  }
}

/** Placeholders were made for the record that first referenced them (`file#index`): that is their position. */
function placeholderPosition(firstSeenIn: string): { file: string; index: number } {
  const at = firstSeenIn.lastIndexOf('#');
  return at < 0 ? { file: firstSeenIn, index: 0 } : { file: firstSeenIn.slice(0, at), index: Number(firstSeenIn.slice(at + 1)) || 0 };
}

function* readChannels({ origin, first, context, keys, pipelineId }: Reader): Generator<Processed> {
  for (const r of first.directory.rejected) if (r.stage === 'channels') yield rejectedRecord(origin, r);
  for (const channel of first.directory.channels.values()) {
    keys.reset();
    const item = mapSlackChannel(channel, context);
    const sourceKey = keys.take();
    // Found again after the import by this property (channel-ids.ts), as for every pipeline.
    item.properties = withIdentityProperties(item.properties, pipelineId, sourceKey) as typeof item.properties;
    yield acceptItem('channels', item as Record<string, unknown>, positionIn(origin, channel.position), sourceKey);
  }
}

function* readMembers({ origin, first, context, keys }: Reader, lookup: ChannelIdLookup): Generator<Processed> {
  const { directory } = first;
  // DIRECT channels carry their members in the channel item; the others get them here, channel by channel.
  keys.reset();
  for (const pending of mapSlackMembers(context)) {
    const channel = directory.channels.get(pending.channelKey)!;
    const channelKey = slackSourceKey.channel(directory.teamId, channel.id);
    const sourceKey = keys.take();
    // The generator makes one item per step: reset after each, so the keys never pile up.
    keys.reset();
    yield acceptItem('members', pending.item as Record<string, unknown>, positionIn(origin, channel.position), sourceKey, { key: channelKey, lookup });
  }
}

/**
 * JSON files in a conversation folder that are no day file (`2020-09-14 2.json`, a copy made when exports are
 * merged by hand): not read, since their date is unknown, but each counted as a skipped record saying so,
 * so messages in them are not dropped without a word.
 */
function strayConversationFiles(exp: SlackExport): string[] {
  return listUnrecognizedFiles(exp).filter((path) => path.split('/').length === 2 && path.toLowerCase().endsWith('.json'));
}

function strayFileRecord(origin: string, path: string): Processed {
  const because = `${path} is not a day file (YYYY-MM-DD.json): not read; rename it to its date to import its messages`;
  return { kind: 'skipped', position: positionIn(origin, { file: path, index: 0 }), rule: -1, because };
}

/** Messages the reorder window could not take back into ts order (day-order.ts): imported, but out of order. */
function lateWarning(first: SlackFirstPass, channelId: string, late: LateBeyondWindow, window: number, origin: string): string {
  const where = positionIn(origin, late.first);
  return `${conversationName(first, channelId)}: ${late.count} message${late.count === 1 ? '' : 's'} filed in a day file further after ${late.count === 1 ? 'its' : 'their'} own day than the reorder window reaches (the first at ${where.file} #${where.index}) imported after later messages, out of order; set slack.reorderWindow above ${window} messages to take ${late.count === 1 ? 'it' : 'them'} back into ts order`;
}

/** Replies filed further before their root than the reorder window reaches (message-days.ts): orphans in the channel. */
function repliesBeforeLateRootsWarning(first: SlackFirstPass, channelId: string, replies: RepliesBeforeLateRoots, window: number, origin: string): string {
  const where = positionIn(origin, replies.first);
  const one = replies.count === 1;
  return `${conversationName(first, channelId)}: ${replies.count} ${one ? 'reply' : 'replies'} filed in a day file further before ${one ? 'its root' : 'their roots'} than the reorder window reaches (the first at ${where.file} #${where.index}) imported into the channel as ${one ? 'an orphan' : 'orphans'} (counted in orphans), not into ${one ? 'its' : 'their'} thread; set slack.reorderWindow above ${window} messages to send ${one ? 'it' : 'them'} into ${one ? 'its' : 'their'} thread`;
}

const conversationName = (first: SlackFirstPass, channelId: string): string => {
  const name = first.directory.channels.get(channelId)?.record.name;
  return `Slack conversation ${name === undefined ? channelId : `${name} (${channelId})`}`;
};

/** One batch per day file. */
async function* readMessages({ origin, first, context, keys, reorderWindow }: Reader, exp: SlackExport, lookup: ChannelIdLookup, shard: ShardSpec | undefined, { signal, onReaderWarning, earlierRoots }: SlackStageDeps): AsyncGenerator<Processed[]> {
  const mapper = createSlackMessageMapper(context);
  // Each message carries its own source key; the keys noted while a day file is mapped are reset before the next, so they do not pile up.
  const keyed: SlackMessageMapper = {
    ...mapper,
    mapDay(...day) {
      keys.reset();
      return mapper.mapDay(...day);
    },
  };
  const teamId = first.directory.teamId;
  const owns = folderOwner(shard, teamId);
  const stray = strayConversationFiles(exp).filter((path) => owns?.({ folder: path }) ?? true);
  if (stray.length > 0) yield stray.map((path) => strayFileRecord(origin, path));
  for await (const day of readMessageDays(first, exp, keyed, owns, reorderWindow)) {
    if (signal?.aborted) return;
    if (day.kind === 'late') {
      onReaderWarning?.(lateWarning(first, day.channelId, day.late, reorderWindow, origin));
      continue;
    }
    if (day.kind === 'replies-before-late-roots') {
      onReaderWarning?.(repliesBeforeLateRootsWarning(first, day.channelId, day.replies, reorderWindow, origin));
      continue;
    }
    if (day.kind === 'unreadable') {
      yield [rejectedDayFile(origin, day.file, day.problem)];
      continue;
    }
    // One position file name per day file, not one string per message: positions stay in memory as long
    // as their chunk is open or in flight.
    const file = positionIn(origin, { file: day.file, index: 0 }).file;
    if (day.kind === 'orphaned') {
      const because = `folder ${day.folder} belongs to no conversation in channels/groups/dms/mpims.json`;
      yield Array.from({ length: day.messages }, (_, index): Processed => ({ kind: 'skipped', position: { file, index }, rule: -1, because }));
      continue;
    }
    const channelKey = slackSourceKey.channel(teamId, day.channelId);
    if (earlierRoots) {
      // Only roots older than the conversation's first message here: a later one is in this export, filed
      // further after its reply than the reorder window reaches (an earlier run of this same export imported
      // it): that reply stays an orphan, as that run left it, so a re-run changes nothing.
      await placeUnderEarlierRoots(day.outcomes, earlierRoots, context, mapper.firstTs(day.channelId));
    }
    const batch: Processed[] = [];
    for (const outcome of day.outcomes) {
      if (outcome.outcome !== 'items') {
        batch.push(processedOfOutcome(origin, outcome));
        continue;
      }
      // Each part of a split message is its own record, at its message's position (the part number is in
      // properties.source.part), so counts are of items and still balance. A message moved from the next
      // day file into ts order (day-order.ts) keeps that file's name.
      const position = { file: outcome.position.file === day.file ? file : positionIn(origin, outcome.position).file, index: outcome.position.index };
      // Its own source key, not the key queue's: a day file's outcomes are yielded after the next one is mapped.
      for (const pending of outcome.items) batch.push(acceptItem('messages', pending.item as Record<string, unknown>, position, pending.sourceKey, { key: channelKey, lookup }));
    }
    yield batch;
  }
}

/**
 * Replies whose root is not in this export but an earlier run imported it (a date-ranged, nightly export):
 * mapped as if the root were here, so they go into its thread (the earlier runs are read at the first such
 * reply). `before`: only roots older than this ts (the conversation's first here) are looked up.
 */
async function placeUnderEarlierRoots(outcomes: Array<Outcome<PendingMessage>>, earlierRoots: EarlierRoots, context: SlackMappingContext, before: string | undefined): Promise<void> {
  let imported: ((ref: string) => boolean) | undefined;
  for (const [at, outcome] of outcomes.entries()) {
    if (outcome.outcome !== 'items') continue;
    const root = missingRootOf(outcome.items);
    if (root === undefined || (before !== undefined && compareTs(root.slice(root.lastIndexOf('/') + 1), before) >= 0)) continue;
    if (!(imported ??= await earlierRoots())(root)) continue;
    outcomes[at] = { ...outcome, items: underFoundRoot(outcome.items, context) };
  }
}

