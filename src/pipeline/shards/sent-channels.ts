import type { Accepted, Processed } from '../../transform/index.js';
import { ForeignNames } from './foreign-names.js';
import type { RefusedChannel } from './refused-channels.js';

/**
 * The channel keys one run's channels stage would send, from every channel record in input order (channels
 * are few): accepted by the mapping, not refused by the checks against the platform (`refused`: an unknown
 * member, a name another record holds there; such a channel claims no name), and not losing its
 * name or DIRECT member set to an earlier record (foreign-names.ts, as if every record were this shard's).
 * One run rejects a member or message whose channel is not sent, and such a record holds no key; a shard
 * uses these keys so that another shard's record in such a channel holds none either (foreign-keys.ts), and
 * their records to know which renames another shard sends (foreign-renames.ts). Each key with the record one
 * run sends for it: the last under last-wins, else the first.
 */
export function sentChannelRecords(records: readonly Processed[], lastWins: boolean, refused?: RefusedChannel): Map<string, Accepted> {
  const lastOfKey = lastWins ? new Map<string, number>() : undefined;
  if (lastOfKey) for (const [i, p] of records.entries()) if (p.kind === 'accepted') lastOfKey.set(p.sourceKey, i + 1);
  const names = new ForeignNames(lastOfKey, refused);
  const sent = new Map<string, Accepted>();
  for (const [i, p] of records.entries()) {
    if (p.kind !== 'accepted' || (refused?.(p.item as Record<string, unknown>, p.sourceKey) ?? false) || names.check(p, i + 1).kind !== 'accepted') continue;
    if (lastWins || !sent.has(p.sourceKey)) sent.set(p.sourceKey, p);
  }
  return sent;
}
