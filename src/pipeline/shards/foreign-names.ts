import type { RecordPosition } from '../../formats/index.js';
import { describePosition, type Accepted, type Processed, type Rejected } from '../../transform/index.js';

/**
 * The names of other shards' channels, as one shard reads the channels stage (docs/sharding.md). The
 * platform holds one channel per name; unsharded, a later record with an earlier one's name is rejected
 * (stage-checks.ts). Sharded, the two may fall to different shards, both would be sent, and the platform
 * would keep whichever job ran first. So every shard maps the other shards' channel records too (channels
 * are few) and notes their names in input order, and rejects its own record whose name another shard's
 * record had first; the other shard does the same the other way round, so exactly the first is sent.
 * Mapping every channel also gives `unique: suffix` the same numbering in every shard.
 */
export class ForeignNames {
  /** Each name → the first record (of any shard) that asked for it. */
  private readonly first = new Map<string, { key: string; position: RecordPosition }>();

  /** Another shard's channel record, mapped, in input order. */
  note(processed: Processed): void {
    const name = nameOf(processed);
    if (name !== undefined && !this.first.has(name)) this.first.set(name, { key: (processed as Accepted).sourceKey, position: processed.position });
  }

  /**
   * This shard's channel record, in input order: rejected when another shard's record had its name first.
   * Otherwise the name is noted as its own, so a later record of another shard with it is not taken for the first.
   */
  check<T extends Accepted>(processed: T): T | Rejected {
    const name = nameOf(processed);
    if (name === undefined) return processed;
    const first = this.first.get(name);
    if (first === undefined) this.first.set(name, { key: processed.sourceKey, position: processed.position });
    if (first === undefined || first.key === processed.sourceKey) return processed;
    const message = `name: channel name '${name}' is the name of source key ${first.key} (${describePosition(first.position)}), a channel another shard imports; the platform holds one channel per name and would refuse one of the two. Give this record another name, or let chatport number it (unique: suffix, docs/mapping-language.md)`;
    return { kind: 'rejected', position: processed.position, raw: processed.item, reasons: [{ field: 'name', expected: 'a channel name no earlier record of the stage has', found: JSON.stringify(name), message }] };
  }
}

/** The platform name a channel record asks for (DIRECT channels have none). */
function nameOf(processed: Processed): string | undefined {
  if (processed.kind !== 'accepted') return undefined;
  const item = processed.item as Record<string, unknown>;
  return item.type !== 'DIRECT' && typeof item.name === 'string' ? item.name : undefined;
}
