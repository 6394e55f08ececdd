import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChatportClient } from '../../api/index.js';
import { DEFAULT_STAGE_OPTIONS, type PipelineConfig, type ShardSpec, type StageConfig } from '../../config/index.js';
import { ownsChannel } from '../shards/shard-filter.js';
import { realNow, realSleep, type Now, type Sleep } from '../../shared/async.js';
import { createSilentLogger, type Logger } from '../../shared/logger.js';
import { CHANNEL_KEY_PROPERTY, PIPELINE_PROPERTY } from '../../transform/index.js';
import { sourceOptionsOf } from '../import/read-stage.js';
import { forOneRun, pipelineUserNamesOf, sourceUserNamesOf } from '../import/user-names.js';
import { readStageRecords } from '../import/read-stage.js';
import { usersNamedForOthers } from './user-identity.js';
import { holderOf, namesHeldByStrangers } from '../import/name-holders.js';
import { refusedChannelOf, type RefusedChannel } from '../shards/refused-channels.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import type { StageName } from '../state/events.js';
import { compareChannels, compareMembers, compareUsers, heldTwiceDifferences, matchChannels, type ExpectedChannel, type PlatformChannel, type PlatformUser, type Sourced } from './compare-records.js';
import { RunRejects, expectedChannelIds, readExpected, type ExpectedReadDeps, type ExpectedSource } from './expected-source.js';
import { readExportedMessages, readMemberships, readPlatformChannels, readPlatformUsers, startMessagesExport, type PlatformReadDeps } from './platform-side.js';
import type { Difference, StageVerification, VerificationSummary } from './types.js';
import { verifyMessages } from './verify-messages.js';
import { compareReplyContent, noPendingFindings, settleThreads, verifyThreads, type NameReplies, type Stray, type ThreadsVerification } from './verify-threads.js';
import { keyHashText } from './expected-replies.js';
import { replyKeyOf } from '../import/replies/index.js';
import { MessageIdSet } from './key-set.js';
import { readMessagesAt } from './source-messages.js';
import { findRootThreads, rootKey } from '../import/replies/roots.js';
import { expectInChannel } from './expected-source.js';
import { orphansHeld } from './verify-orphans.js';
import { RepliesOnPlatform, unexpectedReplies } from './unexpected-replies.js';
import { readRunChannelIds } from './run-channel-ids.js';
import { makeSpillFolder, removeSpillsOfKilledRuns, SPILL_PREFIXES } from '../../shared/spill-folders.js';
import { appendAll } from '../../shared/append-all.js';
import { DifferenceSink, readDifferencesFile, takeFirst } from './difference-sink.js';
import { DeletedSinceImports } from './deleted-since-import.js';
import { RunPaths } from '../state/run-paths.js';
import { earlierRootsOf } from '../import/replies/earlier-roots.js';
import { sendsReplies } from '../import/replies/index.js';

export interface VerifyOptions {
  config: PipelineConfig;
  /** The run's rejects files: records it rejected are not expected on the platform. */
  rejectsFiles?: string[];
  /**
   * The runs' `channel-ids.json` files, oldest first: which channel a key held twice on the platform is
   * chatport's (run-channel-ids.ts). Read only when a key is held twice.
   */
  channelIdFiles?: string[];
  /**
   * State folders whose runs' imports say why a message is missing: one a run imported was deleted on the
   * platform since (deleted-since-import.ts). None: a missing message is said missing, no more.
   */
  stateDirs?: string[];
  /** The import run being verified (import --verify): the missing messages it sent again are returned as `resent`. */
  runId?: string;
  /**
   * The runs whose export is verified (`runId`, or what `chatport verify` found): a root they imported is in
   * that export, so it places no reply (earlier-roots.ts); a root other runs of `stateDirs` imported does.
   */
  verifiedRunIds?: string[];
  /** Folder (a run folder) for verify.json and verify-differences.ndjson; nothing is written without it. */
  outDir?: string;
  /**
   * Messages compared in full (body, properties), picked deterministically from the source keys. Default 0.
   * `auto` (the CLI's default): AUTO_CONTENT_SAMPLE when the source holds at most AUTO_SAMPLE_MAX_MESSAGES.
   */
  sample?: number | 'auto';
  /** Most messages read one by one to pin down differences, on top of the sample. Default 1000. */
  maxPinned?: number;
  /** Polling of the messages export job. Default every 250 ms (growing to 5 s), for up to an hour. */
  exportWait?: { pollIntervalMs: number; timeoutMs: number };
  /**
   * What the differences may take in memory before they are spilled to a temp folder and sorted on disk
   * (difference-sink.ts). Default external-sort.ts's DEFAULT_SORT_BUDGET_BYTES; tests set a tiny one.
   */
  differencesBudgetBytes?: number;
  /** Differences kept in memory (VerifyResult.differences, verify.json). Default KEPT_DIFFERENCES; tests set a few. */
  keptDifferences?: number;
  /** Missing records looked up among the runs' imports (deleted-since-import.ts). Default MOST_LOOKED_UP; tests set a few. */
  mostLookedUp?: number;
}

export interface VerifyDeps {
  client: ChatportClient;
  logger?: Logger;
  signal?: AbortSignal;
  sleep?: Sleep;
  now?: Now;
}

export interface VerifyResult {
  summary: VerificationSummary;
  /**
   * The first KEPT_DIFFERENCES differences in source order (all of them when there are no more): what the
   * console and verify.json show. `summary.counts` counts them all.
   */
  differences: Difference[];
  /** Every difference in source order, read back from the differences file when there are more than those kept. */
  allDifferences(): Iterable<Difference>;
  /** Removes the temp differences file of a verification without `outDir` (nothing otherwise). */
  close(): Promise<void>;
  /** With `runId`: the missing messages that run sent again, the platform skipping their taken keys (deleted-since-import.ts). */
  resent: Difference[];
}

/** Differences kept in memory for the console, verify.json and VerifyResult; the rest are in the differences file only. */
export const KEPT_DIFFERENCES = 1000;

/**
 * The content sample by default. The platform's export gives each message's author, type and body length,
 * so a source correction that keeps the length (a corrected digit) shows only in a full read. Comparing a
 * sampled message needs its source record read again, a second pass over the messages input: about 3 s of
 * CPU and 40 MB at 1M CSV messages (measured), so by default only a source of up to 100,000 messages is
 * sampled, and one of up to 200 is checked whole. `--verify-sample N` asks for a sample at any size.
 */
export const AUTO_CONTENT_SAMPLE = 200;
export const AUTO_SAMPLE_MAX_MESSAGES = 100_000;

/**
 * Which of this pipeline's platform records not in the source count as extra (all are looked up). An
 * export pipeline (`slack:`, `discord:`, `mattermost:`) keys every record `<workspace>/…`, so one pipeline
 * may take several workspaces, one export at a time: its records of a workspace this export does not hold
 * are not extra here. Other pipelines judge all their records.
 */
function judgedByExport(config: PipelineConfig, expected: ExpectedSource): (record: { properties?: Record<string, unknown> | undefined }) => boolean {
  if (!config.stages.some((s) => s.slack || s.platformExport)) return () => true;
  const workspaces = new Set<string>();
  for (const user of expected.users) workspaces.add(workspaceOf(user.sourceKey));
  for (const key of expected.channels.keys()) workspaces.add(workspaceOf(key));
  return (record) => {
    const key = record.properties?.[CHANNEL_KEY_PROPERTY];
    return record.properties?.[PIPELINE_PROPERTY] !== config.id || typeof key !== 'string' || workspaces.has(workspaceOf(key));
  };
}

const workspaceOf = (key: string): string => key.slice(0, Math.max(0, key.indexOf('/')));

/**
 * A shard's verification reads its source as the shard did (read-stage.ts), so it needs the channels the
 * import's checks refused against the platform (stage-checks.ts): a member no user answers to (a name the
 * platform does not hold, or holds for another user than the users stage's own), a name another record holds.
 */
async function refusedChannelsOf(config: PipelineConfig, users: readonly PlatformUser[], channels: readonly PlatformChannel[], read: ExpectedReadDeps): Promise<RefusedChannel> {
  const holders = new Map(users.map((u) => [u.name, holderOf(u.properties, config.id)]));
  const hasUsersStage = config.stages.some((s) => s.stage === 'users');
  const sourceNames = hasUsersStage ? await sourceUserNamesOf(config, (stage) => readStageRecords(config, stage, read)) : new Map<string, string>();
  const strangers = namesHeldByStrangers(sourceNames, (name) => holders.get(name), config.matchedUsers?.byKey);
  const channelHolders = new Map(channels.filter((c) => c.type !== 'DIRECT').map((c) => [c.name, holderOf(c.properties, config.id)]));
  return refusedChannelOf((name) => holders.has(name) && !strangers.has(name), channelHolders);
}

/** How long verification waits for its messages export job: `--job-timeout`, else 1 h. */
export function exportWaitOf(timeoutMs: number | undefined): { exportWait: { pollIntervalMs: number; timeoutMs: number } } {
  return { exportWait: { pollIntervalMs: 250, timeoutMs: timeoutMs ?? 3_600_000 } };
}

/**
 * Reconciliation: reads what the platform holds and compares it with what the source says it must hold.
 * Reads (the source through the stage readers, the platform in bulk) are here; the comparisons are pure
 * (compare-records.ts, compare-messages.ts). See docs/verify.md.
 */
export async function runVerify(options: VerifyOptions, deps: VerifyDeps): Promise<VerifyResult> {
  const config = forOneRun(options.config);
  const now = deps.now ?? realNow;
  const startedAt = now();
  const platform: PlatformReadDeps = { client: deps.client, logger: deps.logger ?? createSilentLogger(), sleep: deps.sleep ?? realSleep, ...(deps.signal ? { signal: deps.signal } : {}) };
  await removeSpillsOfKilledRuns(platform.logger);
  const messagesStage = config.stages.find((s) => s.stage === 'messages');
  // The export runs on the platform while the source is read.
  const exportJob = messagesStage ? await startMessagesExport(platform, options.exportWait ?? exportWaitOf(undefined).exportWait) : undefined;
  const [users, allChannels] = await Promise.all([readPlatformUsers(platform), readPlatformChannels(platform)]);
  const channels = config.shard ? shardChannels(allChannels, config.id, config.shard) : allChannels;
  // `ref: user` names each key by the user the platform holds for it, as the import did (user-names.ts).
  config.platformUserNames ??= pipelineUserNamesOf(users, config.id);
  const read: ExpectedReadDeps = { sources: sourceOptionsOf(config, deps.signal), rejects: await RunRejects.read(options.rejectsFiles ?? []), ...(deps.signal ? { signal: deps.signal } : {}) };
  if (config.shard) read.refusedChannel = await refusedChannelsOf(config, users, allChannels, read);
  // The import sent an export's replies to roots its state folder's earlier runs imported into their threads.
  if (messagesStage && sendsReplies(messagesStage) && options.stateDirs && options.stateDirs.length > 0) read.earlierRoots = earlierRootsOf(messagesStage, options.stateDirs, new Set([...(options.verifiedRunIds ?? []), ...(options.runId === undefined ? [] : [options.runId])]));
  const platformKeys = channelKeysOnPlatform(channels, config.id);
  const auto = options.sample === 'auto';
  const sample = options.sample === 'auto' ? AUTO_CONTENT_SAMPLE : (options.sample ?? 0);
  const platformChannelIds = (key: string) => (platformKeys.has(key) ? 1 : undefined);
  const expected = await readExpected(config, read, { platformChannelIds, sample, seed: config.id });
  if (auto && expected.messageCount > AUTO_SAMPLE_MAX_MESSAGES) expected.sample = new Set();
  const judged = judgedByExport(config, expected);

  const sink = new DifferenceSink(options.differencesBudgetBytes);
  const deleted = options.stateDirs && options.stateDirs.length > 0 ? new DeletedSinceImports(config.id, options.stateDirs, options.runId, options.mostLookedUp) : undefined;
  if (deleted) sink.onAdd = (d) => deleted.note(d);
  try {
    return await compareAll();
  } finally {
    sink.close();
  }

  async function compareAll(): Promise<VerifyResult> {
    const stages: Partial<Record<StageName, StageVerification>> = {};
    const record = (stage: StageName, expectedCount: number, result: { differences: Difference[]; verified: number }) => {
      sink.addAll(result.differences);
      stages[stage] = { expected: expectedCount, verified: result.verified, differences: sink.countsOf(stage) };
    };

    if (expected.stages.has('users')) {
      const compared = compareUsers(expected.users, users, config.id, config.matchedUsers?.byKey, judged);
      // Before the platform's messages are read: expected.authors then holds the source's authors only.
      const sourceNames = await sourceUserNamesOf(config, (stage) => readStageRecords(config, stage, read));
      appendAll(compared.differences, usersNamedForOthers(config, sourceNames, users, expected));
      record('users', expected.users.length, compared);
      if (compared.renamed.size > 0) compareAsRenamed(config, expected, compared.renamed);
    }
    const toMatch = channelsToMatch(expected);
    let matched = matchChannels(toMatch, channels, config.id, judged);
    if (matched.heldTwice.size > 0 && options.channelIdFiles)
      matched = matchChannels(toMatch, channels, config.id, judged, await readRunChannelIds(options.channelIdFiles, new Set(matched.heldTwice.keys())));
    if (expected.stages.has('channels')) record('channels', expected.channels.size, compareChannels(expected.channels, matched));
    // Without a channels stage (channels made by another pipeline before it carried ids) a key held twice is said all the same.
    else if (matched.heldTwice.size > 0) record('channels', 0, { differences: heldTwiceDifferences(toMatch, matched.heldTwice), verified: 0 });
    if (expected.members.size > 0) {
      const membersStage = config.stages.find((s) => s.stage === 'members') ?? config.stages.find((s) => s.stage === 'channels');
      const held = await readMemberships(new Map([...channelsByKey(matched)].filter(([key]) => expected.members.has(key))), platform, membersStage?.options.concurrency ?? DEFAULT_STAGE_OPTIONS.concurrency);
      record('members', [...expected.members.values()].reduce((n, m) => n + m.size, 0), compareMembers(expected.members, held));
    }
    let contentChecked = 0;
    if (messagesStage && exportJob) {
      const channelKeyById = new Map<string, string>([...channelsByKey(matched)].map(([key, c]) => [c.id, key]));
      const messagesRead = { ...read, channelIds: expectedChannelIds(expected, platformChannelIds) };
      const nameReplies: NameReplies = (ordinals, streamed) => readMessagesAt(config, messagesStage, ordinals, messagesRead, streamed);
      const journals = (options.stateDirs ?? []).map((dir) => new RunPaths(dir).journal);
      const threads = await checkThreads(deps.client, messagesStage, expected, matched.byKey, { runDir: options.outDir, journals }, nameReplies, deps.signal);
      const repliesHeld = new RepliesOnPlatform();
      const held = await readExportedMessages(await exportJob.finished(), channelKeyById, expected, platform, threads.replyIds, repliesHeld);
      // Free when every message holds the replies the source gives it; threads are read only where more are held.
      const unexpected = await unexpectedReplies(deps.client, messagesStage, repliesHeld, threads.rootThreads, deps.signal);
      appendAll(threads.differences, unexpected.differences);
      if (unexpected.replyIds.size > 0) for (const column of held.values()) column.remove(unexpected.replyIds);
      // Only a missing message whose key a thread holds can turn out moved there (settleThreads): the others are final as named.
      const strays = new Set([...threads.pending.strays, ...unexpected.strays].filter((s) => !s.inChannel).map((s) => s.keyHash));
      const mayMove = (item: { properties?: unknown }) => {
        const key = strays.size === 0 ? undefined : replyKeyOf(messagesStage, item.properties);
        return key !== undefined && strays.has(keyHashText(key));
      };
      const result = await verifyMessages({
        sink, mayMove,
        config, stage: messagesStage, sides: { expected: expected.messages, platform: held, authors: expected.authors, types: expected.types }, sample: expected.sample,
        maxFetches: expected.sample.size + (options.maxPinned ?? 1000), read: messagesRead, client: deps.client, orphanRoots: threads.orphanRoots, ...(deps.signal ? { signal: deps.signal } : {}),
      });
      // A reply moved into its channel is one of the channel's extras; a channel message moved into a thread, a stray there.
      const keyOf = (properties: unknown) => replyKeyOf(messagesStage, properties);
      const inChannels: Stray[] = [];
      for (const { difference, message } of result.movable.extras) {
        const key = keyOf(message.properties);
        if (key === undefined) result.differences.push(difference);
        else inChannels.push({ keyHash: keyHashText(key), message, thread: `channel ${difference.channelKey!}`, channelKey: difference.channelKey!, inChannel: true, extra: difference });
      }
      await settleThreads(threads, [...unexpected.strays, ...inChannels], expected.replies, nameReplies, { missing: result.movable.missing, keyOf: (item) => keyOf(item.properties) }, (d) => sink.add(d));
      contentChecked = result.contentChecked + threads.contentChecked;
      record('messages', expected.messageCount - (threads.standInCopies ?? 0), { differences: [...result.differences, ...threads.differences], verified: result.verified + threads.verified });
    }

    const sampled = messagesStage ? { sample: { picked: expected.sample.size, of: expected.messageCount } } : {};
    const deletedSinceImport = (await deleted?.lookUp()) ?? 0;
    const missingNotLookedUp = deleted?.notLookedUp ?? 0;
    const summary: VerificationSummary = {
      status: sink.total === 0 ? 'exact' : 'differences', counts: sink.totalCounts(), stages, contentChecked,
      ...(deletedSinceImport > 0 ? { deletedSinceImport } : {}), ...(missingNotLookedUp > 0 ? { missingNotLookedUp, lookedUp: deleted!.lookedUp } : {}), ...sampled, durationMs: now() - startedAt,
    };
    return writeDifferences(summary, sink, options.outDir, options.keptDifferences ?? KEPT_DIFFERENCES, deleted);
  }
}

/**
 * The sorted differences go to the run folder's files, or (no run folder) to a temp file when there are more
 * than those kept, for `--json` to read back; the first KEPT_DIFFERENCES stay in memory.
 */
async function writeDifferences(summary: VerificationSummary, sink: DifferenceSink, outDir: string | undefined, keep: number, deleted: DeletedSinceImports | undefined): Promise<VerifyResult> {
  const kept: Difference[] = [];
  const sorted = takeFirst(deleted ? explained(sink.sorted(), deleted) : sink.sorted(), keep, kept);
  let file: string | undefined;
  let temp: string | undefined;
  if (outDir) {
    summary.files = await writeVerifyFiles(outDir, summary, sorted, writeFileAtomic, keep);
    file = summary.files.differences;
  } else if (sink.total > keep) {
    temp = makeSpillFolder(SPILL_PREFIXES.verifyDifferences);
    file = join(temp, 'verify-differences.ndjson');
    await writeFileAtomic(file, ndjsonPieces(sorted));
  } else for (const _ of sorted);
  const all = file !== undefined && sink.total > kept.length ? file : undefined;
  return {
    summary,
    differences: kept,
    resent: deleted?.resent ?? [],
    allDifferences: () => (all === undefined ? kept : readDifferencesFile(all)),
    close: async () => {
      if (temp !== undefined) await rm(temp, { recursive: true, force: true });
    },
  };
}

function* explained(differences: Iterable<Difference>, deleted: DeletedSinceImports): Generator<Difference> {
  for (const d of differences) yield deleted.explain(d);
}

/**
 * Reply threads: the roots' threads are found (the replies pass's answer when the run folder has it), each
 * thread compared with the source's replies, and replies whose root is missing looked for in their channel.
 */
async function checkThreads(
  client: ChatportClient,
  stage: StageConfig,
  expected: ExpectedSource,
  channels: ReadonlyMap<string, { id: string }>,
  /** The run folder whose roots.json answers first; the state folders' journals, where earlier runs sent replies that are roots. */
  state: { runDir: string | undefined; journals: readonly string[] },
  nameReplies: NameReplies,
  signal: AbortSignal | undefined,
): Promise<ThreadsVerification> {
  const replies = expected.replies;
  if (replies.count === 0) return { differences: [], verified: 0, contentChecked: 0, replyIds: new MessageIdSet(), orphans: [], orphanRoots: new Map(), rootThreads: { threads: new Set(), heldByChannel: new Map() }, pending: noPendingFindings(0) };
  // Replies to replies are expected in the thread their chain starts from, as the import sends them.
  const threadRoots = replies.threadRoots();
  const wanted = new Map<string, Set<string>>();
  for (let i = 0; i < replies.count; i++) {
    const channel = channels.get(replies.channelKeyOf(i));
    if (channel === undefined || threadRoots[i]! < 0) continue;
    let refs = wanted.get(channel.id);
    if (!refs) wanted.set(channel.id, (refs = new Set()));
    refs.add(replies.parents.name(threadRoots[i]!));
  }
  const cache = state.runDir === undefined ? undefined : join(state.runDir, 'replies', 'roots.json');
  const aborted = signal ?? new AbortController().signal;
  const { threads: roots } = await findRootThreads(client, stage, wanted, cache, aborted, state.journals);
  const content = { authors: expected.authors, types: expected.types, sample: expected.sample };
  const rootOf = (parent: string, channelKey: string) => {
    const channel = channels.get(channelKey);
    return channel === undefined ? undefined : roots.get(rootKey(channel.id, parent));
  };
  const result = await verifyThreads(client, stage, replies, threadRoots, rootOf, nameReplies, content, signal);
  // Orphans held in their channel are verified by key, wherever they sit, and left out of the channel's
  // order, their content as a thread reply's; one that is not there is expected at the channel's end, so
  // its absence shows as a difference.
  // A reply with a channel copy (a Slack broadcast) is not sent as an orphan: its copy, expected among the
  // channel's messages, stands for it (send-replies.ts).
  const orphans = result.orphans.length;
  result.orphans = result.orphans.filter((i) => replies.copied[i] === 0);
  result.standInCopies = orphans - result.orphans.length;
  const held = await orphansHeld(client, stage, replies, result.orphans, channels, aborted);
  const found = result.pending;
  for (const i of result.orphans) {
    const message = held.get(i);
    if (message === undefined) {
      expectInChannel(expected, replies.channelKeyOf(i), replies.token(i), replies.ordinal[i]!);
      result.orphanRoots.set(replies.ordinal[i]!, replies.parents.name(threadRoots[i]! >= 0 ? threadRoots[i]! : replies.parent[i]!));
      continue;
    }
    result.replyIds.add(String(message.id));
    const place = `channel ${replies.channelKeyOf(i)}, where it was placed because its root is not on the platform`;
    if (compareReplyContent(replies, content, { reply: i, place, message }, found)) result.verified++;
  }
  return result;
}

/**
 * Users renamed on the platform (one `changed` user each): their memberships and messages are theirs still,
 * so the source's names for them are taken as the platform's (the authors' tokens, the members, and the
 * records a second read gives).
 */
function compareAsRenamed(config: PipelineConfig, expected: ExpectedSource, renamed: ReadonlyMap<string, string>): void {
  config.renamedUsers = renamed;
  for (const [from, to] of renamed) {
    expected.authors.rename(from, to);
    for (const members of expected.members.values()) {
      const at = members.get(from);
      if (at === undefined || members.has(to)) continue;
      members.delete(from);
      members.set(to, at);
    }
  }
}

/** A shard verifies its own channels: the pipeline's channels other shards own are theirs to verify. */
function shardChannels(channels: PlatformChannel[], pipelineId: string, shard: ShardSpec): PlatformChannel[] {
  return channels.filter((c) => {
    const key = c.properties?.[CHANNEL_KEY_PROPERTY];
    const owner = c.properties?.[PIPELINE_PROPERTY];
    return typeof key !== 'string' || (owner !== undefined && owner !== pipelineId) || ownsChannel(shard, key);
  });
}

/** Keys of channels that are the pipeline's (its id) or carry a key and no pipeline id (written before chatport stored it). */
function channelKeysOnPlatform(channels: readonly PlatformChannel[], pipelineId: string): Set<string> {
  const keys = new Set<string>();
  for (const c of channels) {
    const key = c.properties?.[CHANNEL_KEY_PROPERTY];
    const owner = c.properties?.[PIPELINE_PROPERTY];
    if (typeof key === 'string' && (owner === undefined || owner === pipelineId)) keys.add(key);
  }
  return keys;
}

/**
 * Where members and messages are: the matched channels, and the pipeline's channels the source does not
 * expect (extras), such as one whose record the run rejected while its members and messages went there.
 */
function channelsByKey(matched: ReturnType<typeof matchChannels>): Map<string, PlatformChannel> {
  const byKey = new Map(matched.byKey);
  for (const c of matched.extras) byKey.set(String(c.properties?.[CHANNEL_KEY_PROPERTY]), c);
  return byKey;
}

/** The channels stage's channels, or (a pipeline without one) the channel keys its records name. */
function channelsToMatch(expected: ExpectedSource): Map<string, Sourced<ExpectedChannel>> {
  if (expected.stages.has('channels')) return expected.channels;
  const referenced = new Map<string, Sourced<ExpectedChannel>>();
  for (const key of [...expected.members.keys(), ...expected.messages.keys()])
    referenced.set(key, { sourceKey: key, position: { file: '', index: 0 }, item: { type: '', members: [] } });
  return referenced;
}

/**
 * One NDJSON line per difference, in pieces of a thousand lines: ten million differences (an import stopped
 * half way) joined into one string would pass the most a string can hold (about 512 MB) and stop verify.
 */
export function* ndjsonPieces(differences: Iterable<Difference>): Generator<string> {
  let piece: string[] = [];
  for (const d of differences) {
    piece.push(`${JSON.stringify(d)}\n`);
    if (piece.length === 1000) {
      yield piece.join('');
      piece = [];
    }
  }
  if (piece.length > 0) yield piece.join('');
}

/**
 * The earlier summary goes first and each file is replaced whole, so a kill at any point never leaves a
 * summary beside another verification's differences (at worst the differences without their summary).
 */
export async function writeVerifyFiles(
  dir: string, summary: VerificationSummary, differences: Iterable<Difference>, write: typeof writeFileAtomic = writeFileAtomic, keep = KEPT_DIFFERENCES,
): Promise<{ summary: string; differences: string }> {
  await mkdir(dir, { recursive: true });
  const files = { summary: join(dir, 'verify.json'), differences: join(dir, 'verify-differences.ndjson') };
  await rm(files.summary, { force: true });
  const first: Difference[] = [];
  await write(files.differences, ndjsonPieces(takeFirst(differences, keep, first)));
  await write(files.summary, `${JSON.stringify({ ...summary, files, differences: first }, null, 2)}\n`);
  return files;
}
