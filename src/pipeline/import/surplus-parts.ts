import { isNotFoundError, type ChatportClient } from '../../api/index.js';
import { PART_PROPERTY } from '../../transform/index.js';
import type { HeldCopy } from './held-messages.js';

/**
 * `longBodies: split`: a message the source corrected to fewer parts than the platform holds leaves the
 * held parts beyond the source's count (`<key>#n`) with no source record. The record's first part finds
 * them (docs/identity.md "Updates"): `mode: upsert` deletes them, then patches the first part; insert
 * lists them, not applied.
 */

/** A held part of no source record: its key (the record's key with `#n`) and the platform's id. */
export interface SurplusPart {
  sourceKey: string;
  id: HeldCopy['id'];
}

/** `chatportPart` of a message's properties (item or held copy): its index and count, or one part of one. */
function partOf(properties: unknown): { index: number; count: number } {
  const part = (properties as Record<string, unknown> | undefined)?.[PART_PROPERTY] as { index?: unknown; count?: unknown } | undefined;
  return { index: numberOr1(part?.index), count: numberOr1(part?.count) };
}

/** A snapshot keeps numbers losslessly: small integers as numbers, big ones as bigint. */
const numberOr1 = (value: unknown): number => (typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : 1);

/**
 * The held parts beyond the source's count, found by key (`heldKey` is the first part's look-up key,
 * `sourceKey` its source key), from the next index on while held: none for a later part. Not by the count
 * the platform's first part names, which an older version patched before (never after) the surplus was
 * gone. Only a message marked as that very part (`chatportPart.index`) is one, not a record whose own
 * source key ends in `#n`. In order of their index.
 */
export function surplusParts(
  item: Record<string, unknown>,
  sourceKey: string,
  heldKey: string,
  find: (key: string) => HeldCopy | undefined,
): SurplusPart[] {
  const source = partOf(item.properties);
  if (source.index !== 1) return [];
  const found: SurplusPart[] = [];
  for (let n = source.count + 1; ; n++) {
    const part = find(`${heldKey}#${n}`);
    if (!part || partOf(part.fields.properties).index !== n) return found;
    found.push({ sourceKey: `${sourceKey}#${n}`, id: part.id });
  }
}

/**
 * Deletes the parts, last first: a run stopped part way leaves the first ones, which the next run finds
 * from the same index on. One already gone (an earlier attempt's delete, whose answer a kill lost, with a
 * resumed run comparing with the same snapshot) counts as deleted.
 */
export async function deleteSurplusParts(client: ChatportClient, parts: readonly SurplusPart[], signal: AbortSignal): Promise<void> {
  for (const part of [...parts].reverse()) {
    try {
      await client.messages.delete(part.id, { signal });
    } catch (error) {
      if (!isNotFoundError(error)) throw error;
    }
  }
}
