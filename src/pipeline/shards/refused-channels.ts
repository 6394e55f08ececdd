import { heldByAnother, type Holder } from '../import/name-holders.js';

/**
 * Whether the channels stage's checks against the platform refuse a channel record (stage-checks.ts): a
 * member or creator no user answers to there, or a name the platform holds for another record (another
 * pipeline's channel). Such a record is never sent, so in a sharded read it claims no name and its members
 * and messages hold no keys (sent-channels.ts, foreign-names.ts): one run rejects them with it.
 */
export type RefusedChannel = (item: Record<string, unknown>, sourceKey: string) => boolean;

/**
 * `knownUser`: a reference to the name passes the checks; `channelHolders`: the platform's channel names,
 * each with whose record holds it (none offline).
 */
export function refusedChannelOf(knownUser: (name: string) => boolean, channelHolders: ReadonlyMap<string, Holder> | undefined): RefusedChannel {
  const unknown = (name: unknown) => typeof name === 'string' && !knownUser(name);
  return (item, sourceKey) => {
    if ((Array.isArray(item.members) && item.members.some(unknown)) || unknown(item.creator)) return true;
    return item.type !== 'DIRECT' && typeof item.name === 'string' && heldByAnother(channelHolders?.get(item.name), sourceKey);
  };
}
