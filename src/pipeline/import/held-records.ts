import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isClientRequestError, isNotFoundError, type ChatportClient } from '../../api/index.js';
import { mappedByChatport, type PipelineConfig, type StageConfig } from '../../config/index.js';
import type { Logger } from '../../shared/logger.js';
import { parseInt64, type Int64 } from '../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import type { InputSourceOptions } from '../../sources/index.js';
import { CHANNEL_KEY_PROPERTY, compareWithPlatform, comparedFieldsOf, fixedFieldDifferences, PIPELINE_PROPERTY, type Accepted, type ComparedStage, type Comparison, type FieldDifference, type Reason } from '../../transform/index.js';
import type { StageCounts } from '../report.js';
import type { UnsentCounts } from '../state/events.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import type { RunPaths } from '../state/run-paths.js';
import { adoptUnmarkedChannel, ambiguous, collectChannelKeys, findDirectHolder, listPipelineChannels } from './channel-ids.js';
import { isPlacedOrphan, parentRefOf, replyKeyOf } from './replies/refs.js';
import { ownsChannel } from '../shards/shard-filter.js';
import { openHeldMessages, type HeldCopy } from './held-messages.js';
import { AddedParts, addedPartsReason, claimsPartKey, deletedPartReason, deleteSurplusParts, heldPartsOf, type HeldParts, type SurplusPart } from './split-parts.js';

/** What becomes of an accepted user, channel or message once compared with the platform's copy. */
export type HeldOutcome =
  | { kind: 'send' }
  /** The platform holds it with the same content: imported, nothing sent. */
  | { kind: 'held' }
  /** It held other content and `mode: upsert` patched it. */
  | { kind: 'updated' }
  /** It holds other content, left as it is (`mode: insert`): "changed, not applied". */
  | { kind: 'changed' }
  /** It cannot be this pipeline's record (a DIRECT channel of another pipeline), or the platform refused the update. */
  | { kind: 'conflict'; reasons: Reason[] };

/** What a held record's change line and warning name (an accepted record, or a spooled reply). */
export type HeldSource = Pick<Accepted, 'sourceKey' | 'position' | 'item'>;

export interface HeldRecords {
  settle(record: Accepted): HeldOutcome | Promise<HeldOutcome>;
  /**
   * Messages: a thread reply or orphan the replies pass found already there (replies/deliver.ts), compared as
   * a held message is: `held`, `changed` (counted and listed here) or, with `mode: upsert`, patched
   * (`updated`: listed here, counted from the journal's reply marks) or `conflict`.
   */
  settleReply(reply: HeldSource, copy: HeldCopy): Promise<HeldOutcome>;
  /** Logs how many changes were not applied, when there were more than the warnings named; closes the held messages' files. */
  close(): void;
  /** What settle decided so far, for the journal (a finished stage's counts come from it on resume). */
  unsent(): Required<Pick<UnsentCounts, 'held' | 'updated' | 'changed'>>;
}

/**
 * What the platform held for this pipeline when the stage first started, by source key. Kept in the run
 * folder: a resumed stage compares with the same snapshot, so it rebuilds the same chunks (records its
 * first attempt created are not taken for "held" the second time).
 */
interface Snapshot {
  /** By source key. */
  records: Record<string, HeldCopy>;
  /**
   * DIRECT channel items whose members already have a DIRECT channel that another pipeline made, or that
   * this pipeline made for another source key (`key`; the platform keeps one per member set).
   */
  foreignDirect: Record<string, { id: Int64; pipeline: string; key?: string }>;
  /**
   * Channels: the ids of this pipeline's channels the platform held already. Only these can hold an earlier
   * run's messages that are certainly this pipeline's (a DIRECT channel made outside chatport may hold any
   * pipeline's); absent in snapshots of older versions.
   */
  existed?: Int64[];
}

export interface HeldRecordsInput {
  client: ChatportClient;
  config: PipelineConfig;
  stage: StageConfig;
  paths: RunPaths;
  runId: string;
  sources: InputSourceOptions;
  signal: AbortSignal;
  logger: Logger;
  /** Held messages' keys kept in memory before they spill to disk (held-messages.ts; tests make it small). */
  heldKeysInMemory?: number;
}

/** A held record found by its key (users and channels: the snapshot object; messages: held-messages.ts). */
interface HeldCopies {
  find(key: string): HeldCopy | undefined;
  /** Messages: the copy of a key not held in its own channel that another held channel holds. */
  elsewhere(key: string): HeldElsewhere | undefined;
  /**
   * Messages: the parts held of a record whose first part this is (split-parts.ts); `followed` when the
   * channel holds later messages after them. `claimed`: look-up keys of records read so far whose own key
   * has a part's shape; they are never taken for parts.
   */
  parts(record: Accepted, key: string, claimed: ReadonlySet<string>): (HeldParts & { followed: boolean }) | undefined;
  foreignDirect(key: string): Snapshot['foreignDirect'][string] | undefined;
  close(): void;
}

/** A message held in another channel than the one its record names: the platform's copy and that channel. */
interface HeldElsewhere {
  copy: HeldCopy;
  channel: { id: string; key?: string };
}

/** Warnings named one by one before the rest are only counted. */
const WARN_EACH = 10;

/** The resource whose merge patch updates a held record of the stage. */
const RESOURCE_NAMES = { users: 'user', channels: 'channel', messages: 'message' } as const;

/**
 * Users, channels and messages: reads what the platform holds for this pipeline (its `chatportPipeline`
 * property; messages: by their key in this pipeline's channels that existed before the run) and decides per
 * record whether to send, count it as held, patch it (`mode: upsert`) or report it changed. Every difference
 * is listed in `<run>/changed/<stage>.ndjson`. Undefined for members, and for messages when no channel can
 * hold this pipeline's earlier messages (heldMessageChannels).
 */
export async function openHeldRecords(input: HeldRecordsInput): Promise<HeldRecords | undefined> {
  const stage = input.stage.stage;
  if (stage === 'members') return undefined;
  const held = stage === 'messages' ? await openMessageCopies(input) : await openSnapshotCopies(input, stage);
  if (held === undefined) return undefined;
  const patched = await refreshPatched(input, stage, held);
  const deleted = await readDeletedParts(input, stage);
  // Written anew by every read of the stage's input (first attempt or resume), so no change is listed twice.
  const changesFile = join(input.paths.runDir(input.runId), 'changed', `${stage}.ndjson`);
  await mkdir(dirname(changesFile), { recursive: true });
  await writeFile(changesFile, '');
  const upsert = input.stage.options.mode === 'upsert';
  const tally = { held: 0, updated: 0, changed: 0 };

  /** `key`: the look-up key a resumed stage reads again (held records only; a reply is found in its thread again). */
  const update = async (key: string | undefined, id: Int64, patch: Record<string, unknown>): Promise<HeldOutcome> => {
    const resource = input.client[stage];
    try {
      if (key !== undefined) await appendFile(patched.file, `${stringifyJson(key)}\n`);
      await resource.update(id, patch, { signal: input.signal });
      if (key !== undefined) tally.updated++;
      return { kind: 'updated' };
    } catch (error) {
      // A 4xx (a new name already taken, the record deleted meanwhile) is this record's problem; anything else stops the run.
      if (!isClientRequestError(error) && !isNotFoundError(error)) throw error;
      const message = `the platform refused the update of ${RESOURCE_NAMES[stage]} ${id}: ${error.message}`;
      return { kind: 'conflict', reasons: [{ field: Object.keys(patch).join(', '), expected: 'an update the platform accepts', found: 'a refused merge patch', message }] };
    }
  };

  const settleChanged = async (record: HeldSource, key: string | undefined, copy: HeldCopy, comparison: Comparison, surplus: readonly SurplusPart[] = []): Promise<HeldOutcome> => {
    const { sourceKey } = record;
    await appendFile(changesFile, `${stringifyJson(changeLine(stage, record, copy.id, upsert, comparison, surplus))}\n`);
    if (upsert) {
      // The update first: one the platform refuses rejects the record, and its old parts stay whole with it.
      const updated = Object.keys(comparison.patch).length > 0 ? await update(key, copy.id, comparison.patch) : undefined;
      if (updated?.kind === 'conflict') return updated;
      await deleteSurplusParts(input.client, surplus, input.signal, deleted.note);
      return updated ?? countUpdated();
    }
    if (++tally.changed <= WARN_EACH) input.logger.warn({ stage, sourceKey, fields: comparison.differences.map((d) => d.field), ...surplusNote(surplus) }, 'changed, not applied; set mode: upsert to apply');
    return { kind: 'changed' };
  };

  /** Brought to the source's content by an earlier attempt; its surplus parts are deleted again (gone already, or left by a kill). */
  const listUpdated = async (record: Accepted, copy: HeldCopy, comparison: Comparison, surplus: readonly SurplusPart[]): Promise<HeldOutcome> => {
    await appendFile(changesFile, `${stringifyJson(changeLine(stage, record, copy.id, true, comparison, surplus))}\n`);
    await deleteSurplusParts(input.client, surplus, input.signal, deleted.note);
    return countUpdated();
  };

  const added = new AddedParts();
  /** Look-up keys of records whose own key reads `<key>#n` (few): the held copy is theirs, not `<key>`'s surplus part. */
  const claimed = new Set<string>();
  /**
   * A record corrected to more parts than held: upsert rejects it (all its parts) when later messages follow
   * the held parts, since the added ones would land at the channel's end; insert sends none of the added ones.
   */
  const noteAddedParts = (record: Accepted, parts: HeldParts & { followed: boolean }): HeldOutcome | undefined => {
    if (parts.source <= parts.held || (upsert && !parts.followed)) return undefined;
    const reasons = upsert ? [addedPartsReason(parts)] : undefined;
    added.note(record.sourceKey, parts.held, reasons);
    return reasons && { kind: 'conflict', reasons };
  };

  /** A part the platform does not hold of a record it holds with fewer parts (insert): changed, not applied, not sent. */
  const listAddedPart = async (record: Accepted): Promise<HeldOutcome> => {
    await appendFile(changesFile, `${stringifyJson(changeLine(stage, record, undefined, false, { differences: [{ field: 'body', platform: undefined, source: record.item.body }], patch: {} }, []))}\n`);
    tally.changed++;
    return { kind: 'changed' };
  };

  const countUpdated = (): HeldOutcome => {
    tally.updated++;
    return { kind: 'updated' };
  };

  /** A first part rejected (moved, a fixed field, a refused patch): its later parts follow it, so none is sent alone (an added one would be). */
  const withItsParts = (record: Accepted, outcome: HeldOutcome): HeldOutcome => {
    if (outcome.kind === 'conflict' && record.parts !== undefined && record.parts.length > 0) added.note(record.sourceKey, 0, outcome.reasons);
    return outcome;
  };

  const settleRecord = (record: Accepted): HeldOutcome | Promise<HeldOutcome> => {
    const foreign = held.foreignDirect(record.sourceKey);
    if (foreign) return { kind: 'conflict', reasons: [foreignDirectReason(foreign)] };
    const later = added.laterPart(record);
    if (later && later.kind !== 'compare') return later.kind === 'conflict' ? later : listAddedPart(record);
    const key = stage === 'messages' ? comparedMessageKey(input.stage, record) : record.sourceKey;
    if (key !== undefined && claimsPartKey(record.item, record.sourceKey)) claimed.add(key);
    const copy = key === undefined ? undefined : held.find(key);
    if (!copy) {
      // Sent, it would be taken for a retry of the copy held in the other channel and create nothing.
      const moved = key === undefined ? undefined : held.elsewhere(key);
      return moved ? { kind: 'conflict', reasons: [movedMessageReason(record, moved)] } : { kind: 'send' };
    }
    if (deleted.keys.has(key!)) return { kind: 'conflict', reasons: [deletedPartReason(copy.id)] };
    const fixed = fixedFieldDifferences(stage, record.item, copy.fields);
    if (fixed.length > 0) return { kind: 'conflict', reasons: fixed.map((d) => fixedFieldReason(stage, copy.id, d)) };
    const parts = held.parts(record, key!, claimed);
    const unplaceable = parts && noteAddedParts(record, parts);
    if (unplaceable) return unplaceable;
    const surplus = parts?.surplus ?? [];
    const now = patched.now.get(key!);
    const comparison = compareWithPlatform(stage, record.item, now ?? copy.fields);
    if (comparison.differences.length > 0) return settleChanged(record, key!, copy, comparison, surplus);
    if (now) {
      // Patched to this content by an earlier attempt: an update of this run, listed and counted as one.
      const original = compareWithPlatform(stage, record.item, copy.fields);
      if (original.differences.length > 0) return listUpdated(record, copy, original, surplus);
    }
    // Surplus parts alone (their first part patched already, by an older version) are a change too.
    if (surplus.length > 0) return settleChanged(record, key!, copy, comparison, surplus);
    tally.held++;
    return { kind: 'held' };
  };

  return {
    settle(record) {
      const outcome = settleRecord(record);
      return outcome instanceof Promise ? outcome.then((o) => withItsParts(record, o)) : withItsParts(record, outcome);
    },
    async settleReply(reply, copy) {
      const comparison = compareWithPlatform(stage, reply.item, copy.fields);
      return comparison.differences.length > 0 ? settleChanged(reply, undefined, copy, comparison) : { kind: 'held' };
    },
    close() {
      held.close();
      if (tally.changed > WARN_EACH)
        input.logger.warn({ stage, changed: tally.changed, file: changesFile }, `${tally.changed} ${stage} changed, not applied (all in ${changesFile}); set mode: upsert to apply`);
    },
    unsent: () => ({ ...tally }),
  };
}

/** Counts an outcome other than `send` and `conflict` (those are chunked or rejected by the stage). */
export function countHeld(counts: StageCounts, kind: 'held' | 'updated' | 'changed'): void {
  if (kind === 'changed') {
    counts.skipped++;
    counts.changed++;
    return;
  }
  counts.imported++;
  if (kind === 'updated') counts.updated++;
}

/** A finished stage's counts of records settled without a chunk, from its stage-input-read event. */
export function countsOfUnsent(input: UnsentCounts, importedByChunks: number): Pick<StageCounts, 'imported' | 'updated' | 'changed' | 'duplicates' | 'matched'> {
  const updated = input.updated ?? 0;
  return { imported: importedByChunks + (input.held ?? 0) + updated, updated, changed: input.changed ?? 0, duplicates: input.duplicates ?? 0, ...(input.matched ? { matched: input.matched } : {}) };
}

function foreignDirectReason(foreign: { id: Int64; pipeline: string; key?: string }): Reason {
  if (foreign.key !== undefined)
    return {
      field: 'members',
      expected: 'members whose DIRECT channel is not this pipeline\'s channel of another source key',
      found: `DIRECT channel ${foreign.id} of source key ${foreign.key}`,
      message: `members: the platform keeps one DIRECT channel per member set, and channel ${foreign.id} for these members is this pipeline's channel of source key ${foreign.key}; this record's messages are not merged into it`,
    };
  return {
    field: 'members',
    expected: 'members whose DIRECT channel is not another pipeline\'s',
    found: `DIRECT channel ${foreign.id} of pipeline "${foreign.pipeline}"`,
    message: `members: the platform keeps one DIRECT channel per member set, and channel ${foreign.id} for these members belongs to pipeline "${foreign.pipeline}"; its messages are not merged into it (docs/identity.md)`,
  };
}

function fixedFieldReason(stage: ComparedStage, id: Int64, { field, platform, source }: FieldDifference): Reason {
  const what = RESOURCE_NAMES[stage];
  return {
    field,
    expected: `the ${field} the platform's ${what} ${id} has (${stringifyJson(platform)}): an update cannot change it`,
    found: stringifyJson(source),
    message: `${field}: the platform holds ${what} ${id} with ${field} ${stringifyJson(platform)}, and no update changes a ${what}'s ${field}; keep it in the source, or delete the ${what} on the platform and import it again`,
  };
}

function movedMessageReason({ channelKey, channelId }: Accepted, { copy, channel }: HeldElsewhere): Reason {
  const held = channel.key === undefined ? `channel ${channel.id}` : `channel ${channel.id} (source key ${channel.key})`;
  const named = `channel ${String(channelId)}${channelKey === undefined ? '' : ` (source key ${channelKey})`}`;
  return {
    field: 'channel',
    expected: `the channel the platform's message ${copy.id} is in, ${held}: an update cannot move a message`,
    found: stringifyJson(channelKey ?? String(channelId)),
    message:
      `channel: the platform holds message ${copy.id} of this key in ${held}, and the source names ${named}; no update moves a message to another channel, ` +
      `and sent again it would be taken for a retry of its key and create nothing. Keep its channel in the source, or give the record a new key and ` +
      `delete message ${copy.id} on the platform (a deleted message's key stays used: the same key is not imported again)`,
  };
}

/** `surplusParts`: held parts of the record beyond its source's count, deleted when `applied` (split-parts.ts). */
function changeLine(stage: ComparedStage, { position, sourceKey }: HeldSource, id: Int64 | undefined, applied: boolean, comparison: Comparison, surplus: readonly SurplusPart[]) {
  const line = { stage, sourceKey, ...(id === undefined ? {} : { id }), file: position.file, ...(position.line === undefined ? {} : { line: position.line }), index: position.index, applied, differences: comparison.differences };
  return surplus.length === 0 ? line : { ...line, surplusParts: surplus.map(({ sourceKey, id }) => ({ sourceKey, id })) };
}

const surplusNote = (surplus: readonly SurplusPart[]) => (surplus.length === 0 ? {} : { surplusParts: surplus.map((p) => p.sourceKey) });

/**
 * The snapshot is what the platform held before the run; an earlier attempt may have patched some of those
 * records since (each look-up key is written to `held/<stage>.patched.ndjson` before its patch is sent).
 * They are read again, so a resumed stage compares the source, changed or not since, with what the platform
 * holds now: a record patched to content the source no longer has is patched back, not taken as held.
 * `now`: their fields as the platform holds them (the snapshot keeps what it held before the run).
 */
async function refreshPatched(input: HeldRecordsInput, stage: ComparedStage, held: HeldCopies): Promise<{ file: string; now: Map<string, Record<string, unknown>> }> {
  const file = join(input.paths.runDir(input.runId), 'held', `${stage}.patched.ndjson`);
  const text = await readFile(file, 'utf8').catch(() => '');
  const now = new Map<string, Record<string, unknown>>();
  // A line a crash cut short is the key of a patch that was not sent.
  for (const line of text.split('\n')) {
    const key = parsedKey(line);
    const copy = key === undefined || now.has(key) ? undefined : held.find(key);
    if (!copy) continue;
    const current = await (input.client[stage].get(copy.id, { signal: input.signal }) as Promise<Record<string, unknown>>).catch((error: unknown) => {
      if (isNotFoundError(error)) return undefined; // deleted meanwhile: the patch is refused again, as a reject
      throw error;
    });
    if (current) now.set(key!, comparedFieldsOf(stage, current));
  }
  return { file, now };
}

/**
 * Surplus parts deleted by this run (each look-up key written to `held/<stage>.deleted.ndjson` before its
 * delete is sent). The snapshot still holds them on resume: a source changed back meanwhile to name such a
 * part again finds it deleted, not held. `note` journals one.
 */
async function readDeletedParts(input: HeldRecordsInput, stage: ComparedStage): Promise<{ keys: Set<string>; note: (part: SurplusPart) => Promise<void> }> {
  const file = join(input.paths.runDir(input.runId), 'held', `${stage}.deleted.ndjson`);
  const text = await readFile(file, 'utf8').catch(() => '');
  const keys = new Set(text.split('\n').map(parsedKey).filter((k): k is string => k !== undefined));
  const note = async (part: SurplusPart): Promise<void> => {
    keys.add(part.heldKey);
    await mkdir(dirname(file), { recursive: true });
    await appendFile(file, `${stringifyJson(part.heldKey)}\n`);
  };
  return { keys, note };
}

function parsedKey(line: string): string | undefined {
  try {
    const key: unknown = JSON.parse(line);
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Users and channels (a few per channel or user): one snapshot object, saved whole. */
async function openSnapshotCopies(input: HeldRecordsInput, stage: 'users' | 'channels'): Promise<HeldCopies> {
  const file = join(input.paths.runDir(input.runId), 'held', `${stage}.json`);
  let snapshot = await readFile(file, 'utf8').then((t) => parseJsonExact(t, 'bigint') as Snapshot, () => undefined);
  if (!snapshot) {
    snapshot = stage === 'users' ? await usersSnapshot(input) : await channelsSnapshot(input);
    await writeFileAtomic(file, stringifyJson(snapshot));
  }
  const { records, foreignDirect } = snapshot;
  return { find: (key) => records[key], elsewhere: () => undefined, parts: () => undefined, foreignDirect: (key) => foreignDirect[key], close: () => undefined };
}

/**
 * Messages (millions): streamed to a snapshot file and found by key through a bounded index
 * (held-messages.ts). Undefined when no channel can hold this pipeline's earlier messages.
 */
async function openMessageCopies(input: HeldRecordsInput): Promise<HeldCopies | undefined> {
  const channels = await heldMessageChannels(input);
  // No channel held before (a first import): nothing to compare, and no per-message look-up.
  if (channels === undefined || channels.size === 0) return undefined;
  const heldDir = join(input.paths.runDir(input.runId), 'held');
  // Export blocks' keys are source ids, not the records' source keys (which the idempotency keys come from): no look-up across channels.
  const acrossChannels = !mappedByChatport(input.stage);
  const messages = await openHeldMessages(heldDir, () => heldMessagesOf(input, [...channels.keys()]), {
    memoryKeys: input.heldKeysInMemory,
    ...(acrossChannels ? { otherKeyOf: messageKeyOf } : {}),
  });
  const elsewhere = (key: string): HeldElsewhere | undefined => {
    // Held in its own channel (once, or twice and so not compared): not moved.
    if (messages.holds(key)) return undefined;
    const found = messages.findByOther(messageKeyOf(key));
    const id = found && channelIdOf(found.key);
    return id === undefined || id === channelIdOf(key) ? undefined : { copy: found!.copy, channel: { id, key: channels.get(id) } };
  };
  // Parts are keyed `<key>#n` by longBodies: split; an export block's parts share its source id.
  const parts = (record: Accepted, key: string, claimed: ReadonlySet<string>): (HeldParts & { followed: boolean }) | undefined => {
    const found = acrossChannels ? heldPartsOf(record.item, record.sourceKey, key, (k) => (claimed.has(k) ? undefined : messages.find(k))) : undefined;
    if (!found) return undefined;
    const next = found.source > found.held ? messages.nextKey(found.lastKey) : undefined;
    return { ...found, followed: next !== undefined && channelIdOf(next) === channelIdOf(key) };
  };
  return { find: (key) => messages.find(key), elsewhere, parts, foreignDirect: () => undefined, close: () => messages.close() };
}

async function usersSnapshot({ client, config, signal }: HeldRecordsInput): Promise<Snapshot> {
  const records: Snapshot['records'] = {};
  for await (const user of client.users.list({ pageSize: 100, properties: { [PIPELINE_PROPERTY]: config.id }, signal })) {
    const key = user.properties?.[CHANNEL_KEY_PROPERTY];
    if (user.properties?.[PIPELINE_PROPERTY] !== config.id || typeof key !== 'string') continue;
    const other = records[key];
    if (other) throw ambiguous('user', config.id, key, [other.id, user.id]);
    records[key] = { id: user.id, fields: comparedFieldsOf('users', user) };
  }
  return { records, foreignDirect: {} };
}

async function channelsSnapshot({ client, config, stage, sources, signal }: HeldRecordsInput): Promise<Snapshot> {
  const records: Snapshot['records'] = {};
  for (const [key, channel] of await listPipelineChannels(client, config.id, signal)) records[key] = { id: channel.id, fields: comparedFieldsOf('channels', channel) };
  const foreignDirect: Snapshot['foreignDirect'] = {};
  // Only items not found among this pipeline's channels are looked up: DIRECT ones by members, named ones by name.
  const { directByMembers, names } = await collectChannelKeys(config, stage, sources, signal);
  for (const [key, name] of names) {
    if (records[key]) continue;
    const adopted = await adoptUnmarkedChannel(client, config.id, key, name, signal);
    if (adopted) records[key] = { id: adopted.id, fields: comparedFieldsOf('channels', adopted) };
  }
  for (const [members, key] of directByMembers) {
    if (records[key]) continue;
    const holder = await findDirectHolder(client, config.id, members.split('\u0000'), signal);
    if (holder.kind === 'foreign') foreignDirect[key] = { id: holder.id, pipeline: holder.pipeline };
    else if (holder.kind === 'unmarked' && holder.key !== undefined && holder.key !== key) foreignDirect[key] = { id: holder.id, pipeline: config.id, key: holder.key };
  }
  return { records, foreignDirect, existed: Object.values(records).map((r) => r.id) };
}

/**
 * The channels whose messages are compared: this pipeline's channels that existed before this run's channels
 * stage. A channel the run created holds no earlier message, so a first import reads nothing; in any other
 * (a DIRECT channel made by hand, any channel of a run without a channels stage) a message of the same key
 * may be another pipeline's. A shard reads only the channels it owns (the others' messages are not its
 * records). By id (decimal), each with its source key. Undefined when the run has no channels snapshot.
 */
async function heldMessageChannels({ paths, runId, config }: HeldRecordsInput): Promise<Map<string, string> | undefined> {
  const saved = await readChannelsSnapshot(paths.runDir(runId));
  if (saved?.existed === undefined) return undefined;
  const existed = new Set(saved.existed.map(String));
  const { shard } = config;
  const channels = Object.entries(saved.records).filter(([key, channel]) => existed.has(String(channel.id)) && (shard === undefined || ownsChannel(shard, key)));
  return new Map(channels.map(([key, channel]) => [String(channel.id), key]));
}

/**
 * A message record's key among the held messages, or undefined when it is not compared: replies and orphans
 * go through the replies pass (docs/threads.md), which finds them in their threads by key, not by content.
 */
function comparedMessageKey(stage: StageConfig, record: Accepted): string | undefined {
  if (parentRefOf(stage, record) !== undefined || isPlacedOrphan(stage, record)) return undefined;
  // An insert stage without `thread` does not mark its items, yet an earlier upsert run marked the platform's copies.
  const key = mappedByChatport(stage) ? replyKeyOf(stage, record.item.properties) : record.sourceKey;
  return key === undefined || record.channelId === undefined ? undefined : heldKeyOf(record.channelId, key);
}

/**
 * Keys are the source's: two channels (two workspaces of one pipeline) may hold the same export id. A
 * stage's own source key is unique in it (duplicates are checked), so one held in another channel is moved.
 */
const heldKeyOf = (channelId: Int64 | string, key: string): string => `${String(channelId)}\u0000${key}`;
const channelIdOf = (heldKey: string): string => heldKey.slice(0, heldKey.indexOf('\u0000'));
const messageKeyOf = (heldKey: string): string => heldKey.slice(heldKey.indexOf('\u0000') + 1);

/**
 * Each channel read in full (pages of 100): its messages that carry a key, as read. A key found twice in a
 * channel (a copy posted by hand) is never found (held-messages.ts): which of the two is the record cannot
 * be told, so neither is patched.
 */
async function* heldMessagesOf({ client, stage, signal }: HeldRecordsInput, channels: readonly string[]): AsyncGenerator<[string, HeldCopy]> {
  for (const channelId of channels) {
    for await (const message of client.channels.messages(parseInt64(channelId)!, { pageSize: 100, signal })) {
      const key = replyKeyOf(stage, message.properties);
      if (key !== undefined) yield [heldKeyOf(channelId, key), { id: message.id, fields: comparedFieldsOf('messages', message) }];
    }
  }
}

/**
 * This pipeline's channels the platform held before this run's channels stage (its snapshot), as decimal
 * ids: only they can hold an earlier run's messages known to be this pipeline's. Undefined when the run has
 * no such snapshot (no channels stage, or one of an older version).
 */
export async function channelsThatExisted(runDir: string): Promise<ReadonlySet<string> | undefined> {
  const saved = await readChannelsSnapshot(runDir);
  return saved?.existed === undefined ? undefined : new Set(saved.existed.map(String));
}

const readChannelsSnapshot = (runDir: string): Promise<Snapshot | undefined> =>
  readFile(join(runDir, 'held', 'channels.json'), 'utf8').then((t) => parseJsonExact(t, 'bigint') as Snapshot, () => undefined);
