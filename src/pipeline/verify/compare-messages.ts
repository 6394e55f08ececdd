import { align, forEachColumn, forEachMatch, type AlignOptions, type EditOp } from './align.js';
import { closestPairs } from './closest-pairs.js';
import { TokenExtras, type Loose } from './token-extras.js';
import { Uint32List } from '../../shared/typed-arrays.js';
import { ExpectedMessages, PlatformMessages, sameToken, type Interner } from './message-columns.js';
import type { DifferenceKind } from './types.js';
import { appendAll } from '../../shared/append-all.js';

/** A difference in the messages stage before it is tied back to the source (by ordinal) and explained. */
export interface MessageFinding {
  kind: DifferenceKind;
  /** The channel (source key) the message belongs in; for an extra, where it was found. */
  channelKey: string;
  /** The expected message's ordinal in the stage (absent for an extra). */
  ordinal?: number;
  /** The platform's message (absent for a missing one). */
  platformId?: bigint;
  /** `misplaced`: the channel where the message is instead. */
  foundIn?: string;
  /** `changed`: which of author, type, body length differ. */
  fields?: string[];
}

export interface MessageComparison {
  /**
   * Every finding: the paired ones (moved, changed) first, then each hunk's missing and extra messages, made as
   * they are read from the hunks' columns (4 bytes a message, and a byte for whether it was paired). Before,
   * each missing message was an object held with the rest (about 100 bytes a message with its hunk and
   * region, a million missing messages 100 MB) even when nothing read them: a region read in full is
   * classified again by content.
   */
  findings: () => Iterable<MessageFinding>;
  /** Aligned messages whose token is equal (counted as verified unless a content check finds otherwise). */
  verified: number;
  /** Aligned pairs the platform marks edited (lastEditedTime): the composer reads them in full. */
  edited: Array<{ channelKey: string; ordinal: number; platformId: bigint }>;
  /** For each wanted ordinal that is aligned: the platform id it is aligned with (full-content samples). */
  matched: Map<number, { channelKey: string; platformId: bigint }>;
  /** Channels where the look-ahead merge replaced the shortest alignment (too many differences for the budget). */
  approximate: string[];
  /**
   * Where the differences are, widened over neighbours with the same token: a token alignment cannot tell
   * which of several equal tokens ("ok" by the same author) is the one missing. Read in full, a region is
   * aligned again by content (content-regions.ts).
   */
  regions: Region[];
}

/** A stretch of one channel around differences: expected ordinals and platform ids in order, bounded by aligned pairs. */
export interface Region {
  channelKey: string;
  ordinals: Uint32Array;
  platformIds: BigInt64Array;
  /** Token-aligned pairs inside the region (counted in `verified`; the content alignment recounts them). */
  matchedInside: number;
}

export interface MessageSides {
  expected: ReadonlyMap<string, ExpectedMessages>;
  /** The platform's messages in the pipeline's channels, by the channel's source key. */
  platform: ReadonlyMap<string, PlatformMessages>;
  authors: Interner;
  types: Interner;
}

/** A hunk of one channel: positions in its columns of the messages missing (dels) and extra (inss), 1 where paired. */
interface Hunk {
  channelKey: string;
  dels: Uint32Array;
  inss: Uint32Array;
  pairedDels: Uint8Array;
  pairedInss: Uint8Array;
}

/**
 * Compares the expected and the platform's messages channel by channel. Pure: no I/O.
 * 1. Align each channel (author, type, body length as the token).
 * 2. A missing message with an identical extra elsewhere is `out-of-order` (same channel) or
 *    `misplaced` (another channel).
 * 3. Left over, a missing and an extra at the same place (one hunk) with the same type are one message
 *    `changed` (author and/or body length).
 * 4. The rest are `missing` and `extra`.
 */
export function compareMessages(sides: MessageSides, wanted: ReadonlySet<number> = new Set(), options: AlignOptions = {}): MessageComparison {
  const paired: MessageFinding[] = [];
  const hunks: Hunk[] = [];
  const result: MessageComparison = { findings: () => unpairedAfter(paired, hunks, sides), verified: 0, edited: [], matched: new Map(), approximate: [], regions: [] };
  const empty = { e: new ExpectedMessages(), p: new PlatformMessages() };
  const keys = new Set([...sides.expected.keys(), ...sides.platform.keys()]);
  for (const channelKey of keys) {
    const e = sides.expected.get(channelKey) ?? empty.e;
    const p = sides.platform.get(channelKey) ?? empty.p;
    const alignment = align(e.count, p.count, (i, j) => sameToken(e, i, p, j), options);
    if (!alignment.shortest) result.approximate.push(channelKey);
    for (const h of hunksOf(alignment.ops)) hunks.push({ channelKey, ...h, pairedDels: new Uint8Array(h.dels.length), pairedInss: new Uint8Array(h.inss.length) });
    if (alignment.ops.length > 0) appendAll(result.regions, regionsOf(channelKey, alignment.ops, e, p));
    forEachMatch(alignment.ops, e.count, p.count, (i, j) => {
      result.verified++;
      const ordinal = e.ordinal[i]!;
      if (p.edited[j]) result.edited.push({ channelKey, ordinal, platformId: p.id[j]! });
      if (wanted.has(ordinal)) result.matched.set(ordinal, { channelKey, platformId: p.id[j]! });
    });
  }
  pairIdentical(hunks, sides, paired);
  for (const hunk of hunks) pairChanged(hunk, sides, paired);
  return result;
}

/** The paired findings, then each hunk's messages left missing and extra. */
function* unpairedAfter(paired: readonly MessageFinding[], hunks: readonly Hunk[], sides: MessageSides): Generator<MessageFinding> {
  yield* paired;
  for (const hunk of hunks) {
    const e = sides.expected.get(hunk.channelKey);
    const p = sides.platform.get(hunk.channelKey);
    for (let k = 0; k < hunk.dels.length; k++) if (!hunk.pairedDels[k]) yield { kind: 'missing', channelKey: hunk.channelKey, ordinal: e!.ordinal[hunk.dels[k]!]! };
    for (let k = 0; k < hunk.inss.length; k++) if (!hunk.pairedInss[k]) yield { kind: 'extra', channelKey: hunk.channelKey, platformId: p!.id[hunk.inss[k]!]! };
  }
}

/** How far a region reaches over equal tokens on each side of a difference. */
const REGION_REACH = 20;

/**
 * Stretches at most this many aligned columns apart are one region: the token alignment may pair a
 * message with another of the same author and length (a moved message with the one after the gap it
 * left), and only reading both stretches together lets the whole-content alignment undo that.
 */
const REGION_GAP = 3;

function regionsOf(channelKey: string, ops: Iterable<EditOp>, e: ExpectedMessages, p: PlatformMessages): Region[] {
  // The alignment as columns: (i, j) aligned, (i, -1) deleted, (-1, j) inserted.
  const colI = new Int32Array(e.count + p.count);
  const colJ = new Int32Array(e.count + p.count);
  let columns = 0;
  forEachColumn(ops, e.count, p.count, (i, j) => {
    colI[columns] = i;
    colJ[columns++] = j;
  });
  const sameTokenAt = (c: number, d: number): boolean => {
    const [a, i] = colI[c]! >= 0 ? [e, colI[c]!] : [p, colJ[c]!];
    const [b, j] = colI[d]! >= 0 ? [e, colI[d]!] : [p, colJ[d]!];
    return sameToken(a, i, b, j);
  };
  const ranges: Array<[number, number]> = [];
  for (let c = 0; c < columns; c++) {
    if (colI[c]! >= 0 && colJ[c]! >= 0) continue;
    let lo = c;
    while (lo > 0 && c - lo < REGION_REACH && sameTokenAt(lo - 1, c)) lo--;
    let hi = c;
    while (hi < columns - 1 && hi - c < REGION_REACH && sameTokenAt(hi + 1, c)) hi++;
    const last = ranges[ranges.length - 1];
    // Touching, overlapping or nearly touching stretches are one region: an edit next to a deletion is one place.
    if (last && lo <= last[1] + 1 + REGION_GAP) last[1] = Math.max(last[1], hi);
    else ranges.push([lo, hi]);
  }
  return ranges.map(([lo, hi]) => {
    const ordinals = new Uint32List();
    const platformIds: bigint[] = [];
    let matchedInside = 0;
    for (let c = lo; c <= hi; c++) {
      if (colI[c]! >= 0) ordinals.push(e.ordinal[colI[c]!]!);
      if (colJ[c]! >= 0) platformIds.push(p.id[colJ[c]!]!);
      if (colI[c]! >= 0 && colJ[c]! >= 0) matchedInside++;
    }
    return { channelKey, ordinals: ordinals.done(), platformIds: BigInt64Array.from(platformIds), matchedInside };
  });
}

/** Splits an edit script into hunks: edits with no aligned pair between them (positions in each side, in order). */
export function hunksOf(ops: Iterable<EditOp>): Array<{ dels: Uint32Array; inss: Uint32Array }> {
  const hunks: Array<{ dels: Uint32Array; inss: Uint32Array }> = [];
  let current: { dels: Uint32List; inss: Uint32List } | undefined;
  const close = () => current && hunks.push({ dels: current.dels.done(), inss: current.inss.done() });
  let i = 0;
  let j = 0;
  for (const op of ops) {
    const gap = op.op === 'del' ? op.i - i : op.j - j;
    if (gap > 0 || !current) {
      close();
      current = { dels: new Uint32List(), inss: new Uint32List() };
    }
    i += gap;
    j += gap;
    if (op.op === 'del') current.dels.push(i++);
    else current.inss.push(j++);
  }
  close();
  return hunks;
}

function pairIdentical(hunks: readonly Hunk[], sides: MessageSides, findings: MessageFinding[]): void {
  // Extras by token; missing ones look for their equal, in their own channel first.
  const extras = new TokenExtras<Loose & { hunk: Hunk; at: number }>();
  for (const hunk of hunks) {
    const p = sides.platform.get(hunk.channelKey)!;
    hunk.inss.forEach((j, at) => extras.add(`${p.author[j]}/${p.type[j]}/${p.length[j]}`, { channelKey: hunk.channelKey, index: j, hunk, at }));
  }
  if (extras.size === 0) return;
  for (const h of hunks) {
    const e = sides.expected.get(h.channelKey)!;
    h.dels.forEach((i, at) => {
      const found = extras.take(`${e.author[i]}/${e.type[i]}/${e.length[i]}`, h.channelKey);
      if (found === undefined) return;
      const platformId = sides.platform.get(found.channelKey)!.id[found.index]!;
      h.pairedDels[at] = 1;
      found.hunk.pairedInss[found.at] = 1;
      const ordinal = e.ordinal[i]!;
      if (found.channelKey === h.channelKey) findings.push({ kind: 'out-of-order', channelKey: h.channelKey, ordinal, platformId });
      else findings.push({ kind: 'misplaced', channelKey: h.channelKey, ordinal, platformId, foundIn: found.channelKey });
    });
  }
}

function pairChanged(hunk: Hunk, sides: MessageSides, findings: MessageFinding[]): void {
  const e = sides.expected.get(hunk.channelKey);
  const p = sides.platform.get(hunk.channelKey);
  if (!e || !p || hunk.dels.length === 0 || hunk.inss.length === 0) return;
  // Positions in the hunk of those not paired yet.
  const dels = [...hunk.pairedDels.keys()].filter((k) => !hunk.pairedDels[k]);
  const inss = [...hunk.pairedInss.keys()].filter((l) => !hunk.pairedInss[l]);
  const tokenDifferences = (i: number, j: number): string[] | undefined => {
    if (e.type[i] !== p.type[j]) return undefined;
    return [...(e.author[i] !== p.author[j] ? ['user'] : []), ...(e.length[i] !== p.length[j] ? ['body'] : [])];
  };
  for (const pair of closestPairs(dels.length, inss.length, (k, l) => tokenDifferences(hunk.dels[dels[k]!]!, hunk.inss[inss[l]!]!))) {
    const [k, l] = [dels[pair.i]!, inss[pair.j]!];
    hunk.pairedDels[k] = 1;
    hunk.pairedInss[l] = 1;
    findings.push({ kind: 'changed', channelKey: hunk.channelKey, ordinal: e.ordinal[hunk.dels[k]!]!, platformId: p.id[hunk.inss[l]!]!, fields: pair.fields });
  }
}
