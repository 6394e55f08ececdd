import type { Message } from '../../api/index.js';
import { align } from './align.js';
import { hunksOf, type MessageFinding } from './compare-messages.js';
import { messageContentDifferences, type SourceMessage } from './source-messages.js';
import { closestPairs } from './closest-pairs.js';
import { CHANNEL_KEY_PROPERTY } from '../../transform/index.js';

/** A region (see compareMessages) with its records read in full: the source's and the platform's. */
export interface ContentRegion {
  channelKey: string;
  source: Array<{ ordinal: number; message: SourceMessage }>;
  platform: Message[];
}

/**
 * Aligns each region again by whole content (type, user, body, properties), then classifies as the token
 * comparison does: a missing message whose exact content is extra elsewhere is `out-of-order` (same
 * channel) or `misplaced`; a missing and an extra in one hunk with the same type are one `changed`
 * message (pairChanged: the closest pairs); the rest are `missing` and `extra`. Pure.
 */
export function classifyContentRegions(regions: readonly ContentRegion[]): { findings: MessageFinding[]; verified: number } {
  let verified = 0;
  const hunks: Array<{ channelKey: string; missing: Array<{ ordinal: number; message: SourceMessage }>; extra: Message[] }> = [];
  for (const region of regions) {
    const { source, platform } = region;
    const alignment = align(source.length, platform.length, (i, j) => messageContentDifferences(source[i]!.message.item, platform[j]!).length === 0);
    const split = hunksOf(alignment.ops);
    verified += source.length - split.reduce((n, h) => n + h.dels.length, 0);
    for (const h of split) hunks.push({ channelKey: region.channelKey, missing: Array.from(h.dels, (i) => source[i]!), extra: Array.from(h.inss, (j) => platform[j]!) });
  }
  const findings: MessageFinding[] = [];
  pairMoves(hunks, findings);
  for (const h of hunks) {
    pairChanged(h, findings);
    for (const src of h.missing) findings.push({ kind: 'missing', channelKey: h.channelKey, ordinal: src.ordinal });
    for (const found of h.extra) findings.push({ kind: 'extra', channelKey: h.channelKey, platformId: BigInt(found.id) });
  }
  return { findings, verified };
}

type Hunk = { channelKey: string; missing: Array<{ ordinal: number; message: SourceMessage }>; extra: Message[] };

/**
 * The hunk's missing and extra messages paired as `changed` (closest-pairs.ts): those of one type, and those of
 * another type that are the same record (sameRecord); never two carrying different keys. Removes the pairs
 * from the hunk.
 */
function pairChanged(h: Hunk, findings: MessageFinding[]): void {
  const pairs = closestPairs(h.missing.length, h.extra.length, (i, j) => {
    const [src, found] = [h.missing[i]!.message.item, h.extra[j]!];
    const same = sameRecord(src, found);
    return same === true || (same === undefined && src.type === found.type) ? messageContentDifferences(src, found) : undefined;
  });
  for (const { i, j, fields } of pairs) findings.push({ kind: 'changed', channelKey: h.channelKey, ordinal: h.missing[i]!.ordinal, platformId: BigInt(h.extra[j]!.id), fields });
  const [pairedI, pairedJ] = [new Set(pairs.map((p) => p.i)), new Set(pairs.map((p) => p.j))];
  h.missing = h.missing.filter((_, i) => !pairedI.has(i));
  h.extra = h.extra.filter((_, j) => !pairedJ.has(j));
}

/** Missing messages whose exact content is extra somewhere: moved (own channel first). Removes the pairs from the hunks. */
function pairMoves(hunks: Hunk[], findings: MessageFinding[]): void {
  const extras = new Map<string, Array<{ hunk: Hunk; message: Message }>>();
  for (const hunk of hunks)
    for (const message of hunk.extra) {
      const key = contentKey(message.type, message.user?.name, message.body);
      extras.set(key, [...(extras.get(key) ?? []), { hunk, message }]);
    }
  for (const hunk of hunks)
    for (const src of [...hunk.missing]) {
      // Type, author and body narrow the search; the move is to an extra equal in everything (properties
      // too), in the message's own channel first: "ok" twice by one author are two messages.
      const list = extras.get(contentKey(src.message.item.type, src.message.item.user, src.message.item.body)) ?? [];
      const same = (x: { message: Message }) => messageContentDifferences(src.message.item, x.message).length === 0;
      const found = list.find((x) => x.hunk.channelKey === hunk.channelKey && same(x)) ?? list.find(same);
      if (!found) continue;
      list.splice(list.indexOf(found), 1);
      hunk.missing.splice(hunk.missing.indexOf(src), 1);
      found.hunk.extra.splice(found.hunk.extra.indexOf(found.message), 1);
      const platformId = BigInt(found.message.id);
      if (found.hunk.channelKey === hunk.channelKey) findings.push({ kind: 'out-of-order', channelKey: hunk.channelKey, ordinal: src.ordinal, platformId });
      else findings.push({ kind: 'misplaced', channelKey: hunk.channelKey, ordinal: src.ordinal, platformId, foundIn: found.hunk.channelKey });
    }
}

/**
 * Whether the platform's message is the source's record. Both carrying a key (`properties.chatportKey`): the
 * keys say (a reply moved into the channel is not the channel message deleted beside it). Neither carrying
 * one: the same body, group tag and properties, whatever its type and sender (a message posted again as the
 * application's; an export's message carries its `source.id` among its properties). Otherwise undefined:
 * the content pairing decides as before.
 */
function sameRecord(source: SourceMessage['item'], platform: Message): boolean | undefined {
  const [a, b] = [keyOf(source.properties), keyOf(platform.properties)];
  if (a !== undefined && b !== undefined) return a === b;
  if (a !== undefined || b !== undefined) return undefined;
  return messageContentDifferences(source, platform).every((field) => field === 'type' || field === 'user') || undefined;
}

const keyOf = (properties: unknown): unknown => (properties as Record<string, unknown> | undefined)?.[CHANNEL_KEY_PROPERTY];

/** What a move is looked up by: type, author and body (pairMoves). */
export function contentKey(type: unknown, user: unknown, body: unknown): string {
  return JSON.stringify([type, user ?? null, body ?? null]);
}
