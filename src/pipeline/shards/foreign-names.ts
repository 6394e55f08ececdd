import type { RecordPosition } from '../../formats/index.js';
import { describePosition, type Accepted, type Processed, type Reason, type Rejected } from '../../transform/index.js';
import { membersKey } from '../import/channel-ids.js';
import type { ForeignRenames } from './foreign-renames.js';
import type { RefusedChannel } from './refused-channels.js';

/** Where a channel's identity was first asked for: its source key and record. */
interface FirstHolder {
  key: string;
  position: RecordPosition;
}

/**
 * The names of other shards' channels, as one shard reads the channels stage (docs/sharding.md). The
 * platform holds one channel per name; unsharded, a later record with an earlier one's name is rejected
 * (stage-checks.ts). Sharded, the two may fall to different shards, both would be sent, and the platform
 * would keep whichever job ran first. So every shard maps the other shards' channel records too (channels
 * are few) and notes their names in input order, and rejects its own record whose name another shard's
 * record had first; the other shard does the same the other way round, so exactly the first is sent.
 * Mapping every channel also gives `unique: suffix` the same numbering in every shard.
 *
 * A DIRECT channel's identity is its set of members (the platform holds one DIRECT channel per set), so
 * DIRECT records are noted and checked by that set alike: sent by two shards, the second would be answered
 * with the first's channel and its messages would land there.
 */
export class ForeignNames {
  /** Each name, or DIRECT member set, → the first record (of any shard) that asked for it. */
  private readonly first = new Map<string, FirstHolder>();

  /** Source keys of the records seen so far (without last-wins: a later record of a key is a duplicate). */
  private readonly keys = new Set<string>();

  constructor(
    /**
     * Under `duplicates: last-wins`, each source key's last record (its place in the input): an earlier
     * record of the key is superseded, never sent, and so holds no name (stage-checks.ts claims only sent ones).
     */
    private readonly lastOfKey?: ReadonlyMap<string, number>,
    /**
     * Whether the import's checks refuse a record against the platform (ReadStageDeps.refusedChannel): it is
     * never sent (stage-checks.ts), so it claims no name, nor its key.
     */
    private readonly refusedByChecks?: RefusedChannel,
    /** `mode: upsert`: the platform's names other shards' records rename away (foreign-renames.ts). */
    private readonly renames?: ForeignRenames,
  ) {}

  /** Another shard's channel record, mapped, at `seq` in input order. */
  note(processed: Processed, seq: number): void {
    if (this.refused(processed) || this.notSent(processed, seq)) return;
    const identity = identityOf(processed);
    if (identity !== undefined && !this.first.has(identity.id)) this.first.set(identity.id, { key: (processed as Accepted).sourceKey, position: processed.position });
  }

  /**
   * This shard's channel record, in input order: rejected when another shard's record had its name (or
   * DIRECT member set) first. Otherwise it is noted as its own, so a later record of another shard with it
   * is not taken for the first.
   */
  check<T extends Accepted>(processed: T, seq: number): T | Rejected {
    const refused = this.refused(processed);
    if (refused) this.refuseBeforeForeignRename(processed);
    const identity = refused || this.notSent(processed, seq) ? undefined : identityOf(processed);
    if (identity === undefined) return processed;
    const first = this.first.get(identity.id);
    if (first === undefined) this.first.set(identity.id, { key: processed.sourceKey, position: processed.position });
    if (first === undefined || first.key === processed.sourceKey) return processed;
    return { kind: 'rejected', position: processed.position, raw: processed.item, reasons: [identity.reason(first)] };
  }

  /**
   * This shard's record the checks refuse: when only for its name, held by a channel a record of another
   * shard renames away, it waits for that shard instead (ForeignRenames throws: exit 75).
   */
  private refuseBeforeForeignRename(processed: Accepted): void {
    const item = processed.item as Record<string, unknown>;
    if (this.renames === undefined || item.type === 'DIRECT' || typeof item.name !== 'string') return;
    const claimed = this.first.get(item.name);
    // Refused all the same once the name is free: an earlier record asks for it, or a member or creator is unknown.
    if (claimed !== undefined && claimed.key !== processed.sourceKey) return;
    if (this.refusedByChecks?.({ ...item, name: undefined }, processed.sourceKey) === true) return;
    this.renames.refuseBeforeRename(processed, item.name);
  }

  /** A record the checks refuse against the platform (the shard's own one is rejected by them later). */
  private refused(processed: Processed): boolean {
    return processed.kind === 'accepted' && (this.refusedByChecks?.(processed.item as Record<string, unknown>, processed.sourceKey) ?? false);
  }

  /**
   * A record one run would not send, so it claims nothing: under last-wins, one a later record of its key
   * supersedes; otherwise a later record of a key already seen (a duplicate, or rejected as one).
   */
  private notSent(processed: Processed, seq: number): boolean {
    if (processed.kind !== 'accepted') return false;
    const key = processed.sourceKey;
    if (this.lastOfKey !== undefined) return (this.lastOfKey.get(key) ?? seq) > seq;
    if (this.keys.has(key)) return true;
    this.keys.add(key);
    return false;
  }
}

/** What the platform tells a channel record's channel by (its name, or a DIRECT channel's set of members), and why a later holder is rejected. */
function identityOf(processed: Processed): { id: string; reason: (first: FirstHolder) => Reason } | undefined {
  if (processed.kind !== 'accepted') return undefined;
  const item = processed.item as Record<string, unknown>;
  if (item.type === 'DIRECT') {
    if (!Array.isArray(item.members)) return undefined;
    const members = [...new Set(item.members.map(String))];
    // NUL never occurs in a channel name, so a member set cannot meet a name.
    return { id: `\u0000${membersKey(members)}`, reason: (first) => directReason(members, first) };
  }
  return typeof item.name === 'string' ? { id: item.name, reason: (first) => nameReason(item.name as string, first) } : undefined;
}

function nameReason(name: string, first: FirstHolder): Reason {
  const message = `name: channel name '${name}' is the name of source key ${first.key} (${describePosition(first.position)}), a channel another shard imports; the platform holds one channel per name and would refuse one of the two. Give this record another name, or let chatport number it (unique: suffix, docs/mapping-language.md)`;
  return { field: 'name', expected: 'a channel name no earlier record of the stage has', found: JSON.stringify(name), message };
}

function directReason(members: string[], first: FirstHolder): Reason {
  const message = `members: the DIRECT channel of source key ${first.key} (${describePosition(first.position)}), a channel another shard imports, has the same members; the platform holds one DIRECT channel per set of members, so this one would not be created and its messages would land in that one`;
  return { field: 'members', expected: 'a set of members no other DIRECT channel of the run has', found: JSON.stringify(members), message };
}
