import { join } from 'node:path';
import { mappedByChatport, type StageConfig } from '../../config/index.js';
import { parseInt64, type Int64 } from '../../shared/int64.js';
import { comparedFieldsOf, type Accepted } from '../../transform/index.js';
import { ownsChannel } from '../shards/shard-filter.js';
import { readChannelsSnapshot, type FollowedParts, type HeldCopies, type HeldElsewhere } from './held-copies.js';
import { openHeldMessages, type HeldCopy, type HeldMessages } from './held-messages.js';
import type { HeldRecordsInput } from './held-records.js';
import { isPlacedOrphan, parentRefOf, replyKeyOf } from './replies/refs.js';
import { deletedSinceImported } from '../state/earlier-imports.js';
import { heldPartsOf } from './split-parts.js';
import { pairEditedPosts, postSlotOf } from '../../transform/mattermost/post-keys.js';

/**
 * Messages (millions): streamed to a snapshot file and found by key through a bounded index
 * (held-messages.ts). Undefined when no channel can hold this pipeline's earlier messages.
 */
export async function openMessageCopies(input: HeldRecordsInput): Promise<HeldCopies | undefined> {
  const channels = await heldMessageChannels(input);
  // No channel held before (a first import): nothing to compare, and no per-message look-up.
  if (channels === undefined || channels.size === 0) return undefined;
  const heldDir = join(input.paths.runDir(input.runId), 'held');
  // Export blocks' keys are source ids, not the records' source keys (which the idempotency keys come from): no look-up across channels.
  const acrossChannels = !mappedByChatport(input.stage);
  // Mattermost ids hash the text: an edited post is found by its slot instead (earlierVersionOf).
  const bySlot = input.stage.platformExport?.platform === 'mattermost';
  const messages = await openHeldMessages(heldDir, () => heldMessagesOf(input, [...channels.keys()]), {
    memoryKeys: input.heldKeysInMemory,
    ...(acrossChannels ? { otherKeyOf: messageKeyOf } : bySlot ? { otherKeyOf: heldSlotOf, everyOtherLine: true } : {}),
  });
  const deleted = await deletedSinceHeld(input, channels, messages);
  return {
    find: (key) => messages.find(key),
    ...(bySlot ? { earlierVersion: earlierVersions(messages) } : {}),
    elsewhere: (key) => (acrossChannels ? movedCopyOf(messages, channels, key) : undefined),
    deletedSince: (idempotencyKey) => deleted.get(idempotencyKey),
    parts: (record, key, claimed) => (acrossChannels ? heldPartsAt(messages, record, key, claimed) : undefined),
    foreignDirect: () => undefined,
    close: () => messages.close(),
  };
}

/** Messages an earlier run imported into a held channel whose key that channel no longer holds. */
function deletedSinceHeld({ paths, runId, stage }: HeldRecordsInput, channels: ReadonlyMap<string, string>, messages: HeldMessages): Promise<Map<string, string>> {
  return deletedSinceImported(paths, runId, 'messages', (item) => {
    const channelId = String(item.channelId);
    const key = channels.has(channelId) ? replyKeyOf(stage, item.properties) : undefined;
    return key !== undefined && !messages.holds(heldKeyOf(channelId, key));
  });
}

/**
 * A message the source moved to another channel: its key, not held in its own channel, held in another
 * held channel (found by the key without its channel). `channels`: held channels' source keys by id.
 */
function movedCopyOf(messages: HeldMessages, channels: ReadonlyMap<string, string>, key: string): HeldElsewhere | undefined {
  // Held in its own channel (once, or twice and so not compared): not moved.
  if (messages.holds(key)) return undefined;
  const found = messages.findByOther(messageKeyOf(key));
  const id = found && channelIdOf(found.key);
  return id === undefined || id === channelIdOf(key) ? undefined : { copy: found!.copy, channel: { id, key: channels.get(id) } };
}

/**
 * A Mattermost root post the platform does not hold under its id, which hashes its text: its copy under
 * the id of an earlier text (edited between two exports), found in its slot (channel, time, author;
 * post-keys.ts). The slot's held copies that no post of the export claims by its id (`slotSiblings`: the
 * export's posts of the slot, in order) are paired in order with the slot's posts the platform does not
 * hold: two posts of one millisecond are told apart by their order in the export. Undefined when the
 * post is not a plain root post, its siblings are not known, or no unclaimed copy is left for it (a new
 * post: sent).
 */
function earlierVersions(messages: HeldMessages): (record: Accepted, key: string) => { key: string; copy: HeldCopy } | undefined {
  // A crowded slot's posts share one siblings array: its pairing is made once (the snapshot does not change).
  const pairings = new WeakMap<readonly string[], Map<string, { key: string; copy: HeldCopy }>>();
  return (record, key) => {
    const id = messageKeyOf(key);
    const slot = postSlotOf(id);
    const siblings = record.slotSiblings ?? [id];
    if (slot === undefined) return undefined;
    let pairing = pairings.get(siblings);
    if (pairing === undefined) pairings.set(siblings, (pairing = slotPairing(messages, channelIdOf(key), slot, siblings)));
    return pairing.get(id);
  };
}

/** The slot's pairing (pairEditedPosts): its held copies, a key held twice left out (which copy is the record cannot be told). */
function slotPairing(messages: HeldMessages, channel: string, slot: string, siblings: readonly string[]): Map<string, { key: string; copy: HeldCopy }> {
  const held = messages.findAllByOther(heldKeyOf(channel, slot)).filter((found) => messages.find(found.key) !== undefined);
  return pairEditedPosts(siblings, (id) => messages.holds(heldKeyOf(channel, id)), held.map((found) => [messageKeyOf(found.key), found]));
}

/** A held key's slot (its channel and the post's slot), or the key itself for any other id. */
const heldSlotOf = (heldKey: string): string => {
  const slot = postSlotOf(messageKeyOf(heldKey));
  return slot === undefined ? heldKey : heldKeyOf(channelIdOf(heldKey), slot);
};

/**
 * The held parts of a record whose first part this is. Parts are keyed `<key>#n` by longBodies: split (an
 * export block's parts share its source id, so export blocks have none). `followed`: a later message of
 * the channel is held after them, so an added part would not land in place.
 */
function heldPartsAt(messages: HeldMessages, record: Accepted, key: string, claimed: ReadonlySet<string>): FollowedParts | undefined {
  const found = heldPartsOf(record.item, record.sourceKey, key, (k) => (claimed.has(k) ? undefined : messages.find(k)));
  if (!found) return undefined;
  const next = found.source > found.held ? messages.nextKey(found.lastKey) : undefined;
  return { ...found, followed: next !== undefined && channelIdOf(next) === channelIdOf(key) };
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
export function comparedMessageKey(stage: StageConfig, record: Accepted): string | undefined {
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
