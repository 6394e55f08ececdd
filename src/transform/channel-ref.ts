import { reason } from './types.js';
import type { Reason } from './types.js';
import type { Int64 } from '../shared/int64.js';

/** Source channel key → the platform's channel id (int64); a Map or a function. */
export type ChannelIdLookup = ReadonlyMap<string, Int64> | ((channelKey: string) => Int64 | undefined);

export type ChannelResolution = { ok: true; channelId: Int64 } | { ok: false; reason: Reason };

/**
 * Resolves the channel a member or message names (by its source key) to the platform's channel id. Pure:
 * the caller builds the lookup after the channels stage has finished. An unknown or missing key is a reason
 * to reject the record, never an exception.
 */
export function resolveChannelId(channelKey: string | undefined, lookup: ChannelIdLookup, sourceField: string): ChannelResolution {
  if (channelKey === undefined)
    return { ok: false, reason: reason('channelId', `the source key of a channel (field ${JSON.stringify(sourceField)})`, undefined, sourceField) };
  const find = (key: string) => (typeof lookup === 'function' ? lookup(key) : lookup.get(key));
  const id = find(channelKey);
  if (id === undefined)
    return {
      ok: false,
      reason: reason('channelId', `the key of a channel that the channels stage imported${spacedKeyHint(channelKey, find)}`, channelKey, sourceField),
    };
  return { ok: true, channelId: id };
}

/** Keys are exact: a padded cell (`c1 `) names no channel, which without a word looks like `c1` itself. */
function spacedKeyHint(channelKey: string, find: (key: string) => Int64 | undefined): string {
  const trimmed = channelKey.trim();
  if (trimmed === channelKey || trimmed === '' || find(trimmed) === undefined) return '';
  return ` (${JSON.stringify(trimmed)} is one: this value has spaces around it, which keys keep)`;
}
