import type { ChatportClient } from '../../api/index.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import type { InputSourceOptions } from '../../sources/index.js';
import { CHANNEL_KEY_PROPERTY } from '../../transform/index.js';
import { readStageRecords } from './read-stage.js';
import type { Int64 } from '../../shared/int64.js';

/** What the channels stage produces, read back from its input: every source key, and DIRECT member sets. */
export interface ChannelKeys {
  keys: Set<string>;
  /** Sorted member names joined by NUL → source key, for DIRECT channels. */
  directByMembers: Map<string, string>;
}

const membersKey = (members: readonly string[]) => [...members].sort().join('\u0000');

/** Reads the channels stage's input again (channels are few) and collects the keys it accepts. */
export async function collectChannelKeys(config: PipelineConfig, stage: StageConfig, sources: InputSourceOptions, signal?: AbortSignal): Promise<ChannelKeys> {
  const result: ChannelKeys = { keys: new Set(), directByMembers: new Map() };
  for await (const p of readStageRecords(config, stage, { sources, ...(signal ? { signal } : {}) })) {
    if (p.kind !== 'accepted') continue;
    result.keys.add(p.sourceKey);
    const item = p.item as { type?: string; members?: string[] };
    if (item.type === 'DIRECT' && Array.isArray(item.members)) result.directByMembers.set(membersKey(item.members), p.sourceKey);
  }
  return result;
}

/**
 * Channel source key → platform id. Import jobs return no ids (decisions.md), so after the channels stage
 * the pipeline lists the platform's channels: channels it created carry their source key in
 * `properties.chatportKey`; a DIRECT channel that already existed for the same members (the platform keeps
 * one per member set) is found by its members.
 */
export async function resolveChannelIds(client: ChatportClient, expected: ChannelKeys | undefined, signal?: AbortSignal): Promise<Map<string, Int64>> {
  const ids = new Map<string, Int64>();
  for await (const channel of client.channels.list({ pageSize: 100, ...(signal ? { signal } : {}) })) {
    const key = channel.properties?.[CHANNEL_KEY_PROPERTY];
    if (typeof key === 'string') {
      ids.set(key, channel.id);
      continue;
    }
    if (channel.type === 'DIRECT' && expected && channel.members) {
      const byMembers = expected.directByMembers.get(membersKey(channel.members.map((m) => m.name)));
      if (byMembers !== undefined && !ids.has(byMembers)) ids.set(byMembers, channel.id);
    }
  }
  return ids;
}
