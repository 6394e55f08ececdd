import { int64 } from '../../shared/int64.js';
import { messageRefOf, replyKeyOf } from '../import/replies/index.js';
import type { ChatportClient, Message } from '../../api/index.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import type { ChannelIdLookup } from '../../transform/index.js';
import { compareMessages, type MessageFinding, type MessageSides, type Region } from './compare-messages.js';
import { classifyContentRegions, contentKey, type ContentRegion } from './content-regions.js';
import type { DifferenceSink } from './difference-sink.js';
import { PassingMissing } from './passing-missing.js';
import { inOrderAhead } from '../../shared/in-order-ahead.js';
import { where } from './describe.js';
import { withSourceContent } from './deleted-since-import.js';
import type { ExpectedReadDeps } from './expected-source.js';
import { messageContentDifferences, readMessagesAt, type SourceMessage, type StreamedOrdinals } from './source-messages.js';
import type { Difference } from './types.js';

export interface MessagesVerification {
  differences: Difference[];
  verified: number;
  contentChecked: number;
  /** What a move between a channel and a reply thread may explain (verify-threads.ts settleThreads). */
  movable: ChannelMovable;
}

/**
 * Extras read in full (not in `differences`: a reply moved into the channel is one), and the missing
 * messages with their source records (in `differences`: a thread may hold one, moved there).
 */
export interface ChannelMovable {
  extras: Array<{ difference: Difference; message: Message }>;
  missing: Array<{ difference: Difference; src: SourceMessage }>;
}

export interface MessagesVerifyInput {
  config: PipelineConfig;
  stage: StageConfig;
  sides: MessageSides;
  /** Ordinals picked for full-content checks. */
  sample: ReadonlySet<number>;
  /** Most messages read one by one (samples first, then to pin down differences). */
  maxFetches: number;
  read: ExpectedReadDeps & { channelIds: ChannelIdLookup };
  client: ChatportClient;
  signal?: AbortSignal;
  /** Replies expected in their channel because their thread's root is not on the platform: ordinal → the root's ref. */
  orphanRoots?: ReadonlyMap<number, string>;
  /**
   * Where the missing messages that nothing can change go as they are named (one by one, as the second read
   * passes them); the others are in `differences`.
   */
  sink: DifferenceSink;
  /** Whether a missing message may be one a thread holds (settleThreads): such a one stays in `movable`. */
  mayMove?: (item: SourceMessage['item']) => boolean;
}

/**
 * Messages: compare in bulk (compareMessages), then name each difference by its source record (second
 * read of the source, only for the ordinals involved) and read individual platform messages to confirm
 * a move (misplaced, out of order: same content?), to see what an edit on the platform changed, and
 * for the full-content sample.
 */
export async function verifyMessages(input: MessagesVerifyInput): Promise<MessagesVerification> {
  const comparison = compareMessages(input.sides, input.sample);
  // Regions read in full pin each difference to its record; past the fetch budget the token findings stand.
  const regionReads = comparison.regions.reduce((n, r) => n + r.platformIds.length, 0);
  const byContent = regionReads + input.sample.size <= input.maxFetches;
  // Read in full, the regions are classified again by content: the token findings are not read.
  if (byContent) comparison.findings = () => [];
  const fetcher = new MessageFetcher(input.client, input.maxFetches, input.signal);
  const differences: Difference[] = [];
  const movable: ChannelMovable = { extras: [], missing: [] };
  const orphans = new OrphanNames(input.stage, input.orphanRoots);
  const isOrphan = (ordinal: number) => input.orphanRoots?.has(ordinal) === true;
  // A missing message that is not an orphan, and (read in full) in a region without platform messages, is
  // missing whatever its content, unless it equals one of the regions' extras: named as the read passes it.
  const passing = new PassingMissing();
  const platform = byContent ? await readRegionMessages(comparison.regions, fetcher, input.stage.options.concurrency) : [];
  const inRegions = new Set<number>();
  for (const [k, region] of byContent ? comparison.regions.entries() : []) {
    for (const o of region.ordinals) if (platform[k]!.length > 0 || isOrphan(o)) inRegions.add(o);
    else passing.add(o, region.channelKey);
  }
  if (!byContent) for (const f of comparison.findings()) if (f.kind === 'missing' && !isOrphan(f.ordinal!)) passing.add(f.ordinal!, f.channelKey);
  const extraContent = new Set(platform.flat().map((m) => contentKey(m.type, m.user?.name, m.body)));
  // A record whose key a region's message carries is read in full too: that one may be its second copy (SecondCopies).
  // A message's own key: `chatportKey`, or an export's `source.id` (and part).
  const keyOf = (properties: unknown) => replyKeyOf(input.stage, properties);
  const extraKeys = new Set(platform.flat().map((m) => keyOf(m.properties)));
  const candidates = new Set<number>();
  const named = (src: SourceMessage, channelKey: string) => {
    orphans.note(src);
    const difference = missingDifference(src, channelKey);
    if (input.mayMove?.(src.item) !== true) return input.sink.add(difference);
    differences.push(difference);
    movable.missing.push({ difference, src });
  };
  const sorted = passing.sorted();
  const streamed: StreamedOrdinals = {
    ordinals: sorted.ordinals,
    visit: (at, src) => {
      const key = keyOf(src.item.properties);
      const candidate = byContent && (extraContent.has(contentKey(src.item.type, src.item.user, src.item.body)) || (key !== undefined && extraKeys.has(key)));
      if (candidate) candidates.add(sorted.ordinals[at]!);
      else named(src, sorted.channelKeyAt(at));
      return candidate;
    },
  };
  const wanted = new Set<number>([...input.sample, ...inRegions]);
  // Past the budget every missing message but an orphan passes (named as it is read).
  const passes = (f: MessageFinding) => f.kind === 'missing' && !isOrphan(f.ordinal!);
  if (!byContent) for (const f of comparison.findings()) if (f.ordinal !== undefined && !passes(f)) wanted.add(f.ordinal);
  for (const e of comparison.edited) wanted.add(e.ordinal);
  const source = await readMessagesAt(input.config, input.stage, wanted, input.read, streamed);
  for (const o of candidates) inRegions.add(o);

  let findings = byContent ? [] : [...comparison.findings()].filter((f) => !passes(f));
  comparison.findings = () => [];
  let verified = comparison.verified;
  let copies: SecondCopies | undefined;
  if (byContent) {
    const regions = contentRegions(comparison.regions, platform, source, inRegions);
    copies = new SecondCopies(regions, keyOf);
    const classified = classifyContentRegions(regions);
    findings = classified.findings;
    verified += classified.verified - comparison.regions.reduce((n, r) => n + r.matchedInside, 0);
  }
  for (const f of findings) if (f.kind === 'missing' && f.ordinal !== undefined) orphans.note(source.get(f.ordinal));
  for (const finding of findings) {
    const src = finding.ordinal === undefined ? undefined : source.get(finding.ordinal);
    const explained = await explain(finding, src, fetcher, orphans);
    const read = finding.kind === 'extra' ? await fetcher.peek(finding.platformId!) : undefined;
    if (read && copies) copies.name(explained[0]!, read);
    if (read) movable.extras.push({ difference: explained[0]!, message: read });
    else differences.push(...explained);
    if (finding.kind === 'missing' && src) movable.missing.push({ difference: explained[0]!, src });
  }
  // Aligned messages that the platform says were edited, and the sample: compared in full.
  const checks = new Map<number, { channelKey: string; platformId: bigint; edited?: true }>(comparison.matched);
  for (const e of comparison.edited) checks.set(e.ordinal, { ...e, edited: true });
  // Read `concurrency` at a time (each waits on the platform), compared in order.
  // An edited one is read past the budget: the platform says it changed, so left unread it would count verified.
  const reads = inOrderAhead(checks, input.stage.options.concurrency, async ([ordinal, { channelKey, platformId, edited }]) => {
    const src = source.get(ordinal);
    return { src, channelKey, platformId, found: src && !inRegions.has(ordinal) ? await fetcher.get(platformId, edited) : undefined };
  });
  for await (const { src, channelKey, platformId, found } of reads) {
    if (!src || !found) continue;
    const fields = messageContentDifferences(src.item, found);
    if (fields.length === 0) continue;
    verified--;
    differences.push(changed(src, channelKey, platformId, fields));
  }
  return { differences, verified, contentChecked: fetcher.fetched, movable };
}

/** The regions' platform messages, read `width` at a time (the fetch budget was checked to hold them all). */
async function readRegionMessages(regions: readonly Region[], fetcher: MessageFetcher, width: number): Promise<Message[][]> {
  const fetched: Message[] = [];
  for await (const message of inOrderAhead(regions.flatMap((r) => [...r.platformIds]), width, (id) => fetcher.get(id))) fetched.push(message!);
  let at = 0;
  return regions.map((region) => fetched.slice(at, (at += region.platformIds.length)));
}

/**
 * The regions with their records. A region without platform messages keeps only the records read in full
 * (`held`: orphans, and those equal to an extra of another region); its others were named missing already.
 */
function contentRegions(regions: readonly Region[], platform: readonly Message[][], source: ReadonlyMap<number, SourceMessage>, held: ReadonlySet<number>): ContentRegion[] {
  return regions.map((region, k) => {
    const ordinals = platform[k]!.length > 0 ? region.ordinals : region.ordinals.filter((o) => held.has(o));
    return { channelKey: region.channelKey, source: Array.from(ordinals, (ordinal) => ({ ordinal, message: source.get(ordinal)! })), platform: platform[k]! };
  });
}

function missingDifference(src: SourceMessage, channelKey: string, text = `message ${src.sourceKey} (${where(src.position)}) is not in channel ${channelKey}`): Difference {
  return withSourceContent({ kind: 'missing', stage: 'messages', sourceKey: src.sourceKey, position: src.position, channelKey, message: text }, src.item);
}

async function explain(finding: MessageFinding, src: SourceMessage | undefined, fetcher: MessageFetcher, orphans?: OrphanNames): Promise<Difference[]> {
  const at = src ? { sourceKey: src.sourceKey, position: src.position } : {};
  const name = src ? `message ${src.sourceKey} (${where(src.position)})` : 'message';
  const id = finding.platformId === undefined ? undefined : String(finding.platformId);
  switch (finding.kind) {
    case 'missing':
      if (src) return [missingDifference(src, finding.channelKey, orphans?.missing(finding, src))];
      return [{ kind: 'missing', stage: 'messages', channelKey: finding.channelKey, message: `${name} is not in channel ${finding.channelKey}` }];
    case 'extra':
      return [{ kind: 'extra', stage: 'messages', channelKey: finding.channelKey, platformId: id!, message: `message ${id} in channel ${finding.channelKey} is not in the source` }];
    case 'changed': {
      const found = src && (await fetcher.get(finding.platformId!));
      const fields = found ? messageContentDifferences(src.item, found) : (finding.fields ?? []);
      return [changed(src, finding.channelKey, finding.platformId!, fields.length > 0 ? fields : (finding.fields ?? []))];
    }
    default: {
      // A move is only a move when the content is the same; otherwise one is missing and another is extra.
      const found = src && (await fetcher.get(finding.platformId!));
      if (found && messageContentDifferences(src.item, found).length > 0)
        return [
          ...(await explain({ kind: 'missing', channelKey: finding.channelKey, ordinal: finding.ordinal! }, src, fetcher)),
          ...(await explain({ kind: 'extra', channelKey: finding.foundIn ?? finding.channelKey, platformId: finding.platformId! }, undefined, fetcher)),
        ];
      const text =
        finding.kind === 'misplaced'
          ? `${name} belongs in channel ${finding.channelKey} but is in channel ${finding.foundIn} (message ${id})`
          : `${name} is in channel ${finding.channelKey} but not where the source puts it (message ${id})`;
      return [{ kind: finding.kind, stage: 'messages', ...at, channelKey: finding.channelKey, platformId: id!, ...(finding.foundIn ? { foundIn: finding.foundIn } : {}), message: text }];
    }
  }
}

function changed(src: SourceMessage | undefined, channelKey: string, platformId: bigint, fields: string[]): Difference {
  const name = src ? `message ${src.sourceKey} (${where(src.position)})` : 'message';
  return {
    kind: 'changed', stage: 'messages', ...(src ? { sourceKey: src.sourceKey, position: src.position } : {}), channelKey, platformId: String(platformId), fields,
    message: `${name} differs on the platform (message ${platformId}) in ${fields.join(', ')}`,
  };
}

/**
 * An extra carrying the key of a source message its region holds as another platform message is a second
 * copy of it (sent twice, or posted again by hand): said so, with the message it repeats, rather than "not in
 * the source". Only the regions read in full are looked at (a copy far from its original stays "not in the
 * source", as the budget of reads allows).
 */
class SecondCopies {
  private readonly sources = new Map<string, SourceMessage>();
  private readonly held = new Map<string, string[]>();

  constructor(
    regions: readonly ContentRegion[],
    private readonly keyOf: (properties: unknown) => string | undefined,
  ) {
    for (const region of regions) {
      for (const { message } of region.source) {
        const key = this.keyOf(message.item.properties);
        if (key !== undefined) this.sources.set(key, message);
      }
      for (const message of region.platform) {
        const key = this.keyOf(message.properties);
        if (key !== undefined) this.held.set(key, [...(this.held.get(key) ?? []), String(message.id)]);
      }
    }
  }

  /** Rewords the extra's sentence when it is a second copy. */
  name(extra: Difference, message: Message): void {
    const key = this.keyOf(message.properties);
    const src = key === undefined ? undefined : this.sources.get(key);
    const original = key === undefined ? undefined : this.held.get(key)?.find((id) => id !== extra.platformId);
    if (src === undefined || original === undefined) return;
    extra.message = `message ${extra.platformId} in channel ${extra.channelKey} is a second copy of message ${src.sourceKey} (${where(src.position)}), held as message ${original}`;
  }
}

/**
 * How a reply expected in its channel (its thread's root is not on the platform) is named when it is not
 * there: when the root is a source message missing too (deleted on the platform, its replies with it), the
 * reply is gone with its thread; otherwise (a root the source lacks, or the run rejected) it is missing from
 * the channel the import places it in, and the sentence says why it belongs there.
 */
class OrphanNames {
  /** The missing messages that are roots of orphans, by the ref replies name them by. */
  private readonly missingByRef = new Map<string, SourceMessage>();
  /** The refs of the orphans' roots: only those missing messages are kept. */
  private readonly rootRefs: ReadonlySet<string>;

  constructor(
    private readonly stage: StageConfig,
    private readonly roots: ReadonlyMap<number, string> | undefined,
  ) {
    this.rootRefs = new Set(roots?.values() ?? []);
  }

  /** A missing message (every one is noted before any orphan is named). */
  note(src: SourceMessage | undefined): void {
    if (!src || this.rootRefs.size === 0) return;
    const ref = messageRefOf(this.stage, src.item.properties) ?? src.sourceKey;
    if (this.rootRefs.has(ref)) this.missingByRef.set(ref, src);
  }

  missing(finding: MessageFinding, src: SourceMessage | undefined): string | undefined {
    const root = finding.ordinal === undefined ? undefined : this.roots?.get(finding.ordinal);
    if (root === undefined || !src) return undefined;
    const name = `reply ${src.sourceKey} (${where(src.position)})`;
    const gone = this.missingByRef.get(root);
    if (gone) return `${name} is not on the platform, nor is its thread: its root ${gone.sourceKey} (${where(gone.position)}) is missing`;
    return `${name} is not in channel ${finding.channelKey}, where it belongs as the root of its thread, ${root}, is not on the platform`;
  }
}

/**
 * GET /messages/{id}, each id once, at most `limit` of them. The reads under way are kept too, so two
 * asking for the same id at once share one read.
 */
class MessageFetcher {
  fetched = 0;
  private readonly cache = new Map<bigint, Promise<Message>>();

  constructor(
    private readonly client: ChatportClient,
    private readonly limit: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** The message when it was read already (no read of its own). */
  peek(id: bigint): Promise<Message | undefined> {
    return this.cache.get(id) ?? Promise.resolve(undefined);
  }

  /** `beyondLimit`: read even when `limit` reads were made. */
  get(id: bigint, beyondLimit = false): Promise<Message | undefined> {
    const cached = this.cache.get(id);
    if (cached || (this.fetched >= this.limit && !beyondLimit)) return cached ?? Promise.resolve(undefined);
    this.fetched++;
    const read = this.client.messages.get(int64(id), this.signal ? { signal: this.signal } : {});
    this.cache.set(id, read);
    return read;
  }
}
