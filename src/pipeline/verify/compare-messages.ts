import { align, forEachColumn, forEachMatch, type AlignOptions, type EditOp } from './align.js';
import { closestPairs } from './closest-pairs.js';
import { TokenExtras } from './token-extras.js';
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
  findings: MessageFinding[];
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
  ordinals: number[];
  platformIds: bigint[];
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
  const result: MessageComparison = { findings: [], verified: 0, edited: [], matched: new Map(), approximate: [], regions: [] };
  const hunks: Array<{ channelKey: string; dels: number[]; inss: number[] }> = [];
  const empty = { e: new ExpectedMessages(), p: new PlatformMessages() };
  const keys = new Set([...sides.expected.keys(), ...sides.platform.keys()]);
  for (const channelKey of keys) {
    const e = sides.expected.get(channelKey) ?? empty.e;
    const p = sides.platform.get(channelKey) ?? empty.p;
    const alignment = align(e.count, p.count, (i, j) => sameToken(e, i, p, j), options);
    if (!alignment.shortest) result.approximate.push(channelKey);
    appendAll(hunks, hunksOf(alignment.ops).map((h) => ({ channelKey, ...h })));
    if (alignment.ops.length > 0) appendAll(result.regions, regionsOf(channelKey, alignment.ops, e, p));
    forEachMatch(alignment.ops, e.count, p.count, (i, j) => {
      result.verified++;
      const ordinal = e.ordinal[i]!;
      if (p.edited[j]) result.edited.push({ channelKey, ordinal, platformId: p.id[j]! });
      if (wanted.has(ordinal)) result.matched.set(ordinal, { channelKey, platformId: p.id[j]! });
    });
  }

  const taken = pairIdentical(hunks, sides, result.findings);
  for (const hunk of hunks) pairChanged(hunk, sides, taken, result.findings);
  for (const hunk of hunks) {
    const e = sides.expected.get(hunk.channelKey);
    const p = sides.platform.get(hunk.channelKey);
    for (const i of hunk.dels) if (!taken.dels.has(`${hunk.channelKey}\u0000${i}`)) result.findings.push({ kind: 'missing', channelKey: hunk.channelKey, ordinal: e!.ordinal[i]! });
    for (const j of hunk.inss) if (!taken.inss.has(`${hunk.channelKey}\u0000${j}`)) result.findings.push({ kind: 'extra', channelKey: hunk.channelKey, platformId: p!.id[j]! });
  }
  return result;
}

/** How far a region reaches over equal tokens on each side of a difference. */
const REGION_REACH = 20;

/**
 * Stretches at most this many aligned columns apart are one region: the token alignment may pair a
 * message with another of the same author and length (a moved message with the one after the gap it
 * left), and only reading both stretches together lets the whole-content alignment undo that.
 */
const REGION_GAP = 3;

function regionsOf(channelKey: string, ops: readonly EditOp[], e: ExpectedMessages, p: PlatformMessages): Region[] {
  // The alignment as columns: (i, j) aligned, (i, -1) deleted, (-1, j) inserted.
  const colI: number[] = [];
  const colJ: number[] = [];
  forEachColumn(ops, e.count, p.count, (i, j) => {
    colI.push(i);
    colJ.push(j);
  });
  const tokenAt = (c: number) => (colI[c]! >= 0 ? `${e.author[colI[c]!]}/${e.type[colI[c]!]}/${e.length[colI[c]!]}` : `${p.author[colJ[c]!]}/${p.type[colJ[c]!]}/${p.length[colJ[c]!]}`);
  const ranges: Array<[number, number]> = [];
  for (let c = 0; c < colI.length; c++) {
    if (colI[c]! >= 0 && colJ[c]! >= 0) continue;
    const token = tokenAt(c);
    let lo = c;
    while (lo > 0 && c - lo < REGION_REACH && tokenAt(lo - 1) === token) lo--;
    let hi = c;
    while (hi < colI.length - 1 && hi - c < REGION_REACH && tokenAt(hi + 1) === token) hi++;
    const last = ranges[ranges.length - 1];
    // Touching, overlapping or nearly touching stretches are one region: an edit next to a deletion is one place.
    if (last && lo <= last[1] + 1 + REGION_GAP) last[1] = Math.max(last[1], hi);
    else ranges.push([lo, hi]);
  }
  return ranges.map(([lo, hi]) => {
    const region: Region = { channelKey, ordinals: [], platformIds: [], matchedInside: 0 };
    for (let c = lo; c <= hi; c++) {
      if (colI[c]! >= 0) region.ordinals.push(e.ordinal[colI[c]!]!);
      if (colJ[c]! >= 0) region.platformIds.push(p.id[colJ[c]!]!);
      if (colI[c]! >= 0 && colJ[c]! >= 0) region.matchedInside++;
    }
    return region;
  });
}

/** Splits an edit script into hunks: edits with no aligned pair between them. */
export function hunksOf(ops: readonly EditOp[]): Array<{ dels: number[]; inss: number[] }> {
  const hunks: Array<{ dels: number[]; inss: number[] }> = [];
  let current: { dels: number[]; inss: number[] } | undefined;
  let i = 0;
  let j = 0;
  for (const op of ops) {
    const gap = op.op === 'del' ? op.i - i : op.j - j;
    if (gap > 0 || !current) hunks.push((current = { dels: [], inss: [] }));
    i += gap;
    j += gap;
    if (op.op === 'del') current.dels.push(i++);
    else current.inss.push(j++);
  }
  return hunks;
}

interface Taken {
  dels: Set<string>;
  inss: Set<string>;
}

function pairIdentical(hunks: ReadonlyArray<{ channelKey: string; dels: number[]; inss: number[] }>, sides: MessageSides, findings: MessageFinding[]): Taken {
  const taken: Taken = { dels: new Set(), inss: new Set() };
  // Extras by token; missing ones look for their equal, in their own channel first.
  const extras = new TokenExtras();
  for (const h of hunks) {
    const p = sides.platform.get(h.channelKey)!;
    for (const j of h.inss) extras.add(`${p.author[j]}/${p.type[j]}/${p.length[j]}`, { channelKey: h.channelKey, index: j });
  }
  if (extras.size === 0) return taken;
  for (const h of hunks) {
    const e = sides.expected.get(h.channelKey)!;
    for (const i of h.dels) {
      const found = extras.take(`${e.author[i]}/${e.type[i]}/${e.length[i]}`, h.channelKey);
      if (found === undefined) continue;
      const platformId = sides.platform.get(found.channelKey)!.id[found.index]!;
      taken.dels.add(`${h.channelKey}\u0000${i}`);
      taken.inss.add(`${found.channelKey}\u0000${found.index}`);
      const ordinal = e.ordinal[i]!;
      if (found.channelKey === h.channelKey) findings.push({ kind: 'out-of-order', channelKey: h.channelKey, ordinal, platformId });
      else findings.push({ kind: 'misplaced', channelKey: h.channelKey, ordinal, platformId, foundIn: found.channelKey });
    }
  }
  return taken;
}

function pairChanged(hunk: { channelKey: string; dels: number[]; inss: number[] }, sides: MessageSides, taken: Taken, findings: MessageFinding[]): void {
  const e = sides.expected.get(hunk.channelKey);
  const p = sides.platform.get(hunk.channelKey);
  if (!e || !p) return;
  const dels = hunk.dels.filter((i) => !taken.dels.has(`${hunk.channelKey}\u0000${i}`));
  const inss = hunk.inss.filter((j) => !taken.inss.has(`${hunk.channelKey}\u0000${j}`));
  const tokenDifferences = (i: number, j: number): string[] | undefined => {
    if (e.type[i] !== p.type[j]) return undefined;
    return [...(e.author[i] !== p.author[j] ? ['user'] : []), ...(e.length[i] !== p.length[j] ? ['body'] : [])];
  };
  for (const pair of closestPairs(dels.length, inss.length, (k, l) => tokenDifferences(dels[k]!, inss[l]!))) {
    const [i, j] = [dels[pair.i]!, inss[pair.j]!];
    taken.dels.add(`${hunk.channelKey}\u0000${i}`);
    taken.inss.add(`${hunk.channelKey}\u0000${j}`);
    findings.push({ kind: 'changed', channelKey: hunk.channelKey, ordinal: e.ordinal[i]!, platformId: p.id[j]!, fields: pair.fields });
  }
}
