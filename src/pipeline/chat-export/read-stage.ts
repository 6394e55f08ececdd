import type { PipelineConfig, PlatformExportConfig, StageConfig } from '../../config/index.js';
import { idempotencyKeysOf, withIdentityProperties, type ChannelIdLookup, type Processed, type StageKind } from '../../transform/index.js';
import {
  chatSourceKey,
  mapChatChannel,
  mapChatMembers,
  mapChatMessage,
  mapChatUser,
  type ChatDirectory,
  type ChatMappingContext,
  type ExportPosition,
  type MessageOutcome,
} from '../../transform/chat-export/index.js';
import type { PlatformExportReader, PlatformStageDeps } from '../platform-export/types.js';
import { ownsChannel } from '../shards/shard-filter.js';
import { acceptItem, positionIn } from '../slack/processed.js';
import type { ChatExportAdapter } from './adapter.js';
import { chatFirstPassFor } from './first-pass.js';
import { inBatches } from '../platform-export/in-batches.js';

/** A PlatformExportReader for a source that reads its export into the neutral model (adapter.ts). */
export function chatExportReader(adapter: ChatExportAdapter): PlatformExportReader {
  return {
    check: async (path) => (await adapter.open(path)).close(),
    readStageBatches: (config, stage, source, deps) => readChatStageBatches(adapter, config, stage, source, deps),
  };
}


/**
 * One stage of the export as Processed records, in a deterministic order: users (the export's, then
 * placeholders), channels, members channel by channel, messages as the adapter reads them. Each record's
 * position names the export and the file inside it.
 */
async function* readChatStageBatches(adapter: ChatExportAdapter, config: PipelineConfig, stage: StageConfig, source: PlatformExportConfig, deps: PlatformStageDeps): AsyncGenerator<Processed[]> {
  const directory = await chatFirstPassFor(config, adapter, source.platform, source.export, deps.signal);
  const context = mappingContext(config, directory, source);
  const origin = source.export;
  switch (stage.stage) {
    case 'users':
      yield* inBatches(readUsers(origin, directory, context, config.id));
      return;
    case 'channels':
      yield* inBatches(readChannels(origin, directory, context, config.id));
      return;
    case 'members':
      yield* inBatches(readMembers(origin, directory, context, lookupOf(deps)));
      return;
    case 'messages':
      yield* readMessages(adapter, origin, directory, context, config, lookupOf(deps), deps.signal);
  }
}

function mappingContext(config: PipelineConfig, directory: ChatDirectory, source: PlatformExportConfig): ChatMappingContext {
  // One key maker per kind: the pipeline id and kind are serialized once, not for every item.
  const makers = new Map<StageKind, (sourceKey: string) => string>();
  return {
    directory,
    systemMessages: source.systemMessages,
    keyFor: (kind, sourceKey) => {
      let make = makers.get(kind);
      if (make === undefined) makers.set(kind, (make = idempotencyKeysOf(config.id, kind)));
      return make(sourceKey);
    },
  };
}

function lookupOf(deps: PlatformStageDeps): ChannelIdLookup {
  if (deps.channelIds === undefined) throw new TypeError('the members and messages stages need deps.channelIds');
  return deps.channelIds;
}


/** A user or channel record the first pass could not take, as a rejected record of its stage. */
function* rejectedOf(origin: string, directory: ChatDirectory, stage: 'users' | 'channels'): Generator<Processed> {
  for (const r of directory.rejected) if (r.stage === stage) yield rejected(origin, r);
}

/** A record read but not taken, with the field, what was expected and what was found. */
function rejected(origin: string, r: { position: ExportPosition; field: string; expected: string; reason: string; raw: unknown }, channelKey?: string): Processed {
  return {
    kind: 'rejected', position: at(origin, r.position), raw: r.raw, ...(channelKey ? { channelKey } : {}),
    reasons: [{ field: r.field, expected: r.expected, found: r.reason, message: `${r.field}: ${r.reason} (expected ${r.expected})` }],
  };
}

function* readUsers(origin: string, directory: ChatDirectory, context: ChatMappingContext, pipelineId: string): Generator<Processed> {
  yield* rejectedOf(origin, directory, 'users');
  for (const user of directory.users.values()) {
    const { item, sourceKey } = mapChatUser(user, context);
    // Found again before a later run's users stage by these properties, as for every pipeline (docs/identity.md).
    item.properties = withIdentityProperties(item.properties, pipelineId, sourceKey) as typeof item.properties;
    yield acceptItem('users', item as Record<string, unknown>, positionIn(origin, user.source.position), sourceKey);
  }
}

function* readChannels(origin: string, directory: ChatDirectory, context: ChatMappingContext, pipelineId: string): Generator<Processed> {
  yield* rejectedOf(origin, directory, 'channels');
  for (const channel of directory.channels.values()) {
    const { item, sourceKey } = mapChatChannel(channel, context);
    item.properties = withIdentityProperties(item.properties, pipelineId, sourceKey) as typeof item.properties;
    yield acceptItem('channels', item as Record<string, unknown>, positionIn(origin, channel.source.position), sourceKey);
  }
}

function* readMembers(origin: string, directory: ChatDirectory, context: ChatMappingContext, lookup: ChannelIdLookup): Generator<Processed> {
  for (const channel of directory.channels.values()) {
    const key = chatSourceKey.channel(directory.workspace, channel.id);
    const position = positionIn(origin, channel.source.position);
    for (const { item, sourceKey } of mapChatMembers(channel, context)) yield acceptItem('members', item as Record<string, unknown>, position, sourceKey, { key, lookup });
  }
}

async function* readMessages(
  adapter: ChatExportAdapter,
  origin: string,
  directory: ChatDirectory,
  context: ChatMappingContext,
  config: PipelineConfig,
  lookup: ChannelIdLookup,
  signal: AbortSignal | undefined,
): AsyncGenerator<Processed[]> {
  const shard = config.shard;
  const owns = shard === undefined ? () => true : (channelId: string) => ownsChannel(shard, chatSourceKey.channel(directory.workspace, channelId));
  const opened = await adapter.open(origin);
  try {
    for await (const outcomes of opened.messages(directory, owns, signal)) {
      if (signal?.aborted) return;
      const batch: Processed[] = [];
      for (const outcome of outcomes) processOutcome(outcome, origin, directory, context, lookup, batch);
      yield batch;
    }
  } finally {
    await opened.close();
  }
}

/** One outcome of the messages pass as Processed records (a message split at the body limit gives one per part). */
function processOutcome(outcome: MessageOutcome, origin: string, directory: ChatDirectory, context: ChatMappingContext, lookup: ChannelIdLookup, out: Processed[]): void {
  const channelKey = (id: string | undefined) => (id === undefined ? undefined : chatSourceKey.channel(directory.workspace, id));
  if (outcome.kind === 'skipped') {
    const key = channelKey(outcome.channelId);
    out.push({ kind: 'skipped', position: at(origin, outcome.position), rule: -1, because: outcome.because, ...(key ? { channelKey: key } : {}), ...(outcome.raw === undefined ? {} : { raw: outcome.raw }) });
    return;
  }
  if (outcome.kind === 'rejected') {
    out.push(rejected(origin, outcome, channelKey(outcome.channelId)));
    return;
  }
  const { message } = outcome;
  const position = at(origin, message.position);
  const mapped = mapChatMessage(message, context);
  const key = channelKey(message.channelId)!;
  if (mapped.kind === 'skipped') {
    out.push({ kind: 'skipped', position, rule: -1, because: mapped.because, channelKey: key });
    return;
  }
  for (const { item, sourceKey } of mapped.items) {
    const processed = acceptItem('messages', item as Record<string, unknown>, position, sourceKey, { key, lookup });
    if (message.slotSiblings !== undefined && processed.kind === 'accepted') processed.slotSiblings = message.slotSiblings;
    out.push(processed);
  }
}

const at = (origin: string, position: ExportPosition) => positionIn(origin, position);
