import type { ChatportClient } from '../../api/index.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import { ChatportError } from '../../shared/errors.js';
import type { InputSourceOptions } from '../../sources/index.js';
import { CHANNEL_KEY_PROPERTY, PIPELINE_PROPERTY } from '../../transform/index.js';
import type { Channel } from '../../wire/resources.js';
import { readStageRecords } from './read-stage.js';
import type { Int64 } from '../../shared/int64.js';

/** What the channels stage produces, read back from its input: every source key, and DIRECT member sets. */
export interface ChannelKeys {
  keys: Set<string>;
  /** Sorted member names joined by NUL → source key, for DIRECT channels. */
  directByMembers: Map<string, string>;
  /** Source key → name, for named (PUBLIC and PRIVATE) channels. */
  names: Map<string, string>;
}

export const membersKey = (members: readonly string[]) => [...members].sort().join('\u0000');

/** Reads the channels stage's input again (channels are few) and collects the keys it accepts. */
export async function collectChannelKeys(config: PipelineConfig, stage: StageConfig, sources: InputSourceOptions, signal?: AbortSignal): Promise<ChannelKeys> {
  const result: ChannelKeys = { keys: new Set(), directByMembers: new Map(), names: new Map() };
  // Each key's record as the stage sends it: the first (a later one of the key is a duplicate or rejected),
  // or the last under `duplicates: last-wins`.
  const lastWins = stage.options.duplicates === 'last-wins';
  const directSetOfKey = new Map<string, string>();
  for await (const p of readStageRecords(config, stage, { sources, ...(signal ? { signal } : {}) })) {
    if (p.kind !== 'accepted') continue;
    const seen = result.keys.has(p.sourceKey);
    result.keys.add(p.sourceKey);
    if (seen && !lastWins) continue;
    const item = p.item as { type?: string; members?: string[]; name?: string };
    if (item.type === 'DIRECT' && Array.isArray(item.members)) {
      directSetOfKey.set(p.sourceKey, membersKey(item.members));
      result.names.delete(p.sourceKey);
    } else {
      directSetOfKey.delete(p.sourceKey);
      if (typeof item.name === 'string') result.names.set(p.sourceKey, item.name);
    }
  }
  // The first key of a member set: a later DIRECT record of the same members is rejected (stage-checks.ts).
  for (const [key, set] of directSetOfKey) if (!result.directByMembers.has(set)) result.directByMembers.set(set, key);
  return result;
}

/**
 * This pipeline's channels on the platform by source key: those carrying `chatportPipeline = <id>`
 * (decisions.md's properties filter). Two with the same key is an error (IDENTITY_AMBIGUOUS), never "the
 * last one wins": messages must not be sent to a channel chatport cannot tell apart.
 */
export async function listPipelineChannels(client: ChatportClient, pipelineId: string, signal?: AbortSignal): Promise<Map<string, Channel>> {
  const byKey = new Map<string, Channel>();
  const filter = { pageSize: 100, properties: { [PIPELINE_PROPERTY]: pipelineId }, ...(signal ? { signal } : {}) };
  for await (const channel of client.channels.list(filter)) {
    // The filter is the platform's; a record that does not carry the id is not this pipeline's, whatever it answered.
    if (channel.properties?.[PIPELINE_PROPERTY] !== pipelineId) continue;
    const key = channel.properties[CHANNEL_KEY_PROPERTY];
    if (typeof key !== 'string') continue;
    const other = byKey.get(key);
    if (other !== undefined) throw ambiguous('channel', pipelineId, key, [other.id, channel.id]);
    byKey.set(key, channel);
  }
  return byKey;
}

export function ambiguous(kind: 'channel' | 'user', pipelineId: string, key: string, ids: Int64[]): ChatportError {
  return new ChatportError(
    `two ${kind}s on the platform carry pipeline "${pipelineId}" and source key ${JSON.stringify(key)} (ids ${ids.join(' and ')}); chatport cannot tell which is this pipeline's. Delete or re-key one of them (properties.${CHANNEL_KEY_PROPERTY}), then run again`,
    { code: 'IDENTITY_AMBIGUOUS', details: { kind, pipeline: pipelineId, key, ids } },
  );
}

/** Who holds the DIRECT channel of a member set, when it is not one of this pipeline's. */
export type DirectHolder = { kind: 'none' } | { kind: 'unmarked'; id: Int64; key?: string } | { kind: 'foreign'; id: Int64; pipeline: string };

/**
 * The platform keeps one DIRECT channel per member set, so a DIRECT item whose members already have one is
 * that channel. It is usable when it carries no chatport properties (made outside chatport) or this
 * pipeline's; one made by another pipeline is that pipeline's record: never shared (docs/identity.md).
 */
export async function findDirectHolder(client: ChatportClient, pipelineId: string, members: readonly string[], signal?: AbortSignal): Promise<DirectHolder> {
  const wanted = membersKey(members);
  const filter = { type: 'DIRECT' as const, members, pageSize: 100, ...(signal ? { signal } : {}) };
  for await (const channel of client.channels.list(filter)) {
    if (!channel.members || membersKey(channel.members.map((m) => m.name)) !== wanted) continue;
    const owner = channel.properties?.[PIPELINE_PROPERTY];
    if (owner === undefined) return { kind: 'unmarked', id: channel.id };
    if (owner === pipelineId) {
      const key = channel.properties?.[CHANNEL_KEY_PROPERTY];
      return typeof key === 'string' ? { kind: 'unmarked', id: channel.id, key } : { kind: 'unmarked', id: channel.id };
    }
    return { kind: 'foreign', id: channel.id, pipeline: String(owner) };
  }
  return { kind: 'none' };
}

/**
 * Channel source key → platform id. Import jobs return no ids (decisions.md), so after the channels stage
 * the pipeline lists its own channels (by `chatportPipeline`) and maps their `chatportKey`; a DIRECT
 * channel that already existed for the same members is found by its members, unless another pipeline
 * made it (then the key stays unresolved and its members and messages are rejected).
 */
export async function resolveChannelIds(client: ChatportClient, pipelineId: string, expected: ChannelKeys | undefined, signal?: AbortSignal): Promise<Map<string, Int64>> {
  const ids = new Map<string, Int64>();
  for (const [key, channel] of await listPipelineChannels(client, pipelineId, signal)) ids.set(key, channel.id);
  for (const [members, key] of expected?.directByMembers ?? []) {
    if (ids.has(key)) continue;
    const holder = await findDirectHolder(client, pipelineId, members.split('\u0000'), signal);
    // This pipeline's channel of another key is that key's, never this one's too.
    if (holder.kind === 'unmarked' && (holder.key === undefined || holder.key === key)) ids.set(key, holder.id);
  }
  return ids;
}

/**
 * A channel chatport made before channels carried the pipeline's id (only `chatportKey`): it is this
 * pipeline's when it has the key and the very name this pipeline's item asks for (names are unique on
 * the platform). It is marked with the id, so that from now on it is found like the others. A channel of
 * another pipeline always carries that pipeline's id, so it is never taken.
 */
export async function adoptUnmarkedChannel(client: ChatportClient, pipelineId: string, key: string, name: string, signal?: AbortSignal): Promise<Channel | undefined> {
  const filter = { pageSize: 100, properties: { [CHANNEL_KEY_PROPERTY]: key }, ...(signal ? { signal } : {}) };
  for await (const channel of client.channels.list(filter)) {
    if (channel.name !== name || channel.properties?.[CHANNEL_KEY_PROPERTY] !== key || channel.properties[PIPELINE_PROPERTY] !== undefined) continue;
    return client.channels.update(channel.id, { properties: { [PIPELINE_PROPERTY]: pipelineId } }, signal ? { signal } : {});
  }
  return undefined;
}
