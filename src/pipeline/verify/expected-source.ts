import { readFile } from 'node:fs/promises';
import { postSlotOf } from '../../transform/mattermost/post-keys.js';
import { spillFolderPath, SPILL_PREFIXES } from '../../shared/spill-folders.js';
import { createSilentLogger } from '../../shared/logger.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import type { InputSourceOptions } from '../../sources/index.js';
import type { Accepted, ChannelIdLookup, Processed } from '../../transform/index.js';
import { openStageDuplicates } from '../import/stage-duplicates.js';
import { DuplicateParts } from '../import/split-parts.js';
import { readStageBatches } from '../import/read-stage.js';
import type { StageName } from '../state/events.js';
import type { ExpectedChannel, ExpectedMembers, ExpectedUser, Sourced } from './compare-records.js';
import { KeyHashSet, hash64 } from './key-set.js';
import { ExpectedMessages, Interner, type Token } from './message-columns.js';
import { hasChannelCopy, parentRefOf, replyKeyOf, sendsReplies } from '../import/replies/index.js';
import { ExpectedReplies } from './expected-replies.js';
import type { RefusedChannel } from '../shards/refused-channels.js';
import type { EarlierRoots } from '../import/replies/earlier-roots.js';

/**
 * Records a run rejected (invalid, or refused by the platform) are not expected on the platform. They are
 * known by stage and position from the run's rejects.ndjson, and by source key where the line names one:
 * records of one place (a Mattermost post line and its replies) may fare differently. A record is left out
 * only while the source still holds the record the line lists there: one fixed in the source since (an
 * author corrected, a body filled in) is expected again, else verify would call a platform without it exact.
 */
export class RunRejects {
  /** Where a rejected record was (and its key, when the line names one): the fingerprints of the records listed there. */
  private readonly listed = new Map<string, string[]>();
  private keyed = false;

  /** Reads rejects files (NDJSON lines with stage, file, index); a file that does not exist holds none. */
  static async read(files: readonly string[]): Promise<RunRejects> {
    const rejects = new RunRejects();
    for (const file of files) {
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        if (line.trim() === '') continue;
        const r = parseJsonExact(line, 'bigint') as { stage: StageName; file: string; index: number; key?: string; record?: unknown };
        if (r.key !== undefined) rejects.keyed = true;
        const at = placeKey(r.stage, r.file, r.index, r.key);
        const listed = rejects.listed.get(at) ?? [];
        if (r.record === undefined) listed.push(ANY_RECORD);
        else listed.push(asRead(r.record), asMapped(r.record));
        rejects.listed.set(at, listed);
      }
    }
    return rejects;
  }

  has(stage: StageName, record: Accepted): boolean {
    if (this.listed.size === 0) return false;
    const { file, index } = record.position;
    const atPlace = this.listed.get(placeKey(stage, file, index, undefined));
    if (atPlace !== undefined && stillListed(atPlace, record)) return true;
    const ofKey = this.keyed ? this.listed.get(placeKey(stage, file, index, record.sourceKey)) : undefined;
    return ofKey !== undefined && stillListed(ofKey, record);
  }
}

/** A line without its record (none written so far lacks one): its place alone decides. */
const ANY_RECORD = '';

/**
 * Whether the source record is one a line lists: as read (the source record), or as mapped (a refused item
 * as sent, and lines written before rejects listed source records).
 */
function stillListed(listed: readonly string[], record: Accepted): boolean {
  if (listed.includes(ANY_RECORD)) return true;
  return (record.raw !== undefined && listed.includes(asRead(record.raw))) || listed.includes(asMapped(record.item));
}

function asRead(record: unknown): string {
  return `r${hash64(stringifyJson(withSortedKeys(record))).join(':')}`;
}

/**
 * The value with every object's keys in sorted order: the same record with its columns (or NDJSON keys)
 * reordered since the run is still the record the line lists.
 */
function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) Object.defineProperty(sorted, key, { value: withSortedKeys((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
  return sorted;
}

/** An item without its channel id: the platform's id the import sent, which verification resolves otherwise. */
function asMapped(item: unknown): string {
  const rest = item !== null && typeof item === 'object' && !Array.isArray(item) ? { ...(item as Record<string, unknown>), channelId: undefined } : item;
  return `i${hash64(stringifyJson(rest)).join(':')}`;
}

function placeKey(stage: string, file: string, index: number, key: string | undefined): string {
  return key === undefined ? positionKey(stage, file, index) : `${positionKey(stage, file, index)}\u0000${key}`;
}

function positionKey(stage: string, file: string, index: number): string {
  return `${stage}\u0000${file}\u0000${index}`;
}

export interface ExpectedReadDeps {
  sources: InputSourceOptions;
  rejects: RunRejects;
  signal?: AbortSignal;
  /** A shard's verification: the channels the import's checks refused against the platform (ReadStageDeps.refusedChannel). */
  refusedChannel?: RefusedChannel;
  /** Roots runs of the state folder(s) imported: the import sent an export's replies to them into their threads. */
  earlierRoots?: EarlierRoots;
}

/**
 * The records of one stage the platform must hold, in source order: accepted by the stage reader, not
 * rejected by the run, and not a source key seen before in the stage (a duplicate is not sent again), or
 * with `duplicates: last-wins` not one a later record of its key supersedes.
 * Every read yields the same sequence, which lets a second read find records by their ordinal.
 */
export async function* expectedRecords(config: PipelineConfig, stage: StageConfig, deps: ExpectedReadDeps & { channelIds?: ChannelIdLookup }): AsyncGenerator<Accepted> {
  const read = () =>
    readStageBatches(config, stage, { sources: deps.sources, ...(deps.signal ? { signal: deps.signal } : {}), ...(deps.channelIds ? { channelIds: deps.channelIds } : {}), ...(deps.refusedChannel ? { refusedChannel: deps.refusedChannel } : {}), ...(deps.earlierRoots ? { earlierRoots: deps.earlierRoots } : {}) });
  if (stage.options.duplicates === 'last-wins') return yield* lastRecordsOfKeys(stage, read, deps);
  const seen = new KeyHashSet();
  for await (const batch of read())
    for (const p of batch) {
      if (p.kind !== 'accepted' || deps.rejects.has(stage.stage, p) || !seen.add(p.sourceKey)) continue;
      yield p;
    }
}

/**
 * `duplicates: last-wins`: each key's last record, at its own place, as the import sent it. The import's
 * own check (openStageDuplicates: a first read to find the last records, then the same verdicts, a
 * record's parts together), so verification expects exactly what the run sent.
 */
async function* lastRecordsOfKeys(stage: StageConfig, read: () => AsyncIterable<Processed[]>, deps: ExpectedReadDeps): AsyncGenerator<Accepted> {
  const spillDir = spillFolderPath(SPILL_PREFIXES.verifyKeys);
  const duplicates = await openStageDuplicates(stage, read, deps.signal ?? new AbortController().signal, createSilentLogger(), spillDir);
  try {
    let ordinal = 0;
    const parts = new DuplicateParts();
    for await (const batch of read())
      for (const p of batch) {
        ordinal++;
        if (p.kind !== 'accepted' || deps.rejects.has(stage.stage, p)) continue;
        if (parts.verdictOf(p, duplicates.check(ordinal, p, stringifyJson(p.item))) === undefined) yield p;
      }
  } finally {
    duplicates.close();
  }
}

export interface ExpectedSource {
  stages: Set<StageName>;
  users: Array<Sourced<ExpectedUser>>;
  channels: Map<string, Sourced<ExpectedChannel>>;
  /** Channel key → expected members (from channel records and the members stage). */
  members: Map<string, ExpectedMembers>;
  /** Channel key → expected messages in source order. */
  messages: Map<string, ExpectedMessages>;
  messageCount: number;
  authors: Interner;
  types: Interner;
  /** Ordinals of the messages whose whole content is read back (`--sample`). */
  sample: Set<number>;
  /** Messages sent into reply threads (not into the channel columns): verify-threads.ts. */
  replies: ExpectedReplies;
}

export interface ReadExpectedOptions {
  /** The pipeline's channel keys on the platform (any id): the channels its members and messages find there. */
  platformChannelIds: (key: string) => number | undefined;
  /** How many messages to pick for full-content checks; the pick depends only on the source keys and `seed`. */
  sample: number;
  seed: string;
}

/** Reads every stage of the source once and keeps what verification compares (messages as compact columns). */
export async function readExpected(config: PipelineConfig, deps: ExpectedReadDeps, options: ReadExpectedOptions): Promise<ExpectedSource> {
  const out: ExpectedSource = {
    stages: new Set(config.stages.map((s) => s.stage)),
    users: [], channels: new Map(), members: new Map(), messages: new Map(), messageCount: 0,
    authors: new Interner(), types: new Interner(), sample: new Set(), replies: new ExpectedReplies(),
  };
  const sampler = new BottomHashes(options.sample, options.seed);
  for (const stage of config.stages) {
    const channelIds = stage.stage === 'members' || stage.stage === 'messages' ? expectedChannelIds(out, options.platformChannelIds) : undefined;
    const threaded = sendsReplies(stage);
    for await (const p of expectedRecords(config, stage, { ...deps, ...(channelIds ? { channelIds } : {}) })) {
      const at = { sourceKey: p.sourceKey, position: p.position };
      const item = p.item as Record<string, unknown>;
      if (stage.stage === 'users') out.users.push({ ...at, item: item as unknown as ExpectedUser });
      else if (stage.stage === 'channels') addChannel(out, p.sourceKey, at, item as unknown as ExpectedChannel);
      else if (stage.stage === 'members') addMember(out, p.channelKey!, String(item.username), at);
      else {
        const ordinal = out.messageCount++;
        const token = { author: out.authors.id(typeof item.user === 'string' ? item.user : ''), type: out.types.id(String(item.type)), length: typeof item.body === 'string' ? item.body.length : 0 };
        // Replies too: their threads' pages carry them whole, so a sampled reply costs no read of its own.
        sampler.offer(p.sourceKey, ordinal);
        const parent = threaded ? parentRefOf(stage, p) : undefined;
        if (parent !== undefined) {
          const key = replyKeyOf(stage, item.properties) ?? p.sourceKey;
          const slot = stage.platformExport?.platform === 'mattermost' ? postSlotOf(key) : undefined;
          out.replies.push({ parent, key, channelKey: p.channelKey!, token, ordinal, copied: hasChannelCopy(stage, item.properties), ...(slot === undefined ? {} : { slot }) });
          continue;
        }
        expectInChannel(out, p.channelKey!, token, ordinal);
      }
    }
  }
  out.sample = sampler.ordinals();
  return out;
}

/** A message expected among its channel's own (an orphan its channel does not hold too, after the others). */
export function expectInChannel(out: ExpectedSource, channelKey: string, token: Token, ordinal: number): void {
  let column = out.messages.get(channelKey);
  if (!column) out.messages.set(channelKey, (column = new ExpectedMessages()));
  column.push(token, ordinal);
}

/** With a channels stage, any key it accepts stands for its channel (placeholders: the source is compared, not resolved). */
/**
 * The channels members and messages may name, as the import finds them after its channels stage
 * (channel-ids.ts): the pipeline's channels on the platform, which include one the source still has but
 * whose record the run rejected (its members and messages were sent there), and the channels stage's.
 */
export function expectedChannelIds(out: ExpectedSource, platform: (key: string) => number | undefined): ChannelIdLookup {
  if (!out.stages.has('channels')) return platform;
  return (key) => (out.channels.has(key) ? 1 : platform(key));
}

function addChannel(out: ExpectedSource, key: string, at: Omit<Sourced<unknown>, 'item'>, item: ExpectedChannel): void {
  out.channels.set(key, { ...at, item: { ...item, members: Array.isArray(item.members) ? item.members : [] } });
  for (const username of Array.isArray(item.members) ? item.members : []) addMember(out, key, username, { sourceKey: `${key}/${username}`, position: at.position, inChannelRecord: true });
}

function addMember(out: ExpectedSource, channelKey: string, username: string, at: Omit<Sourced<unknown>, 'item'> & { inChannelRecord?: true }): void {
  let members = out.members.get(channelKey);
  if (!members) out.members.set(channelKey, (members = new Map()));
  if (!members.has(username)) members.set(username, at);
}

/** Keeps the `size` records whose seeded key hash is lowest: the same pick on every read, whatever the order. */
class BottomHashes {
  private readonly picked: Array<{ hash: number; ordinal: number }> = [];

  constructor(
    private readonly size: number,
    private readonly seed: string,
  ) {}

  offer(key: string, ordinal: number): void {
    if (this.size <= 0) return;
    const hash = hash64(`${this.seed}\u0000${key}`)[0];
    const list = this.picked;
    if (list.length === this.size && hash >= list[list.length - 1]!.hash) return;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.hash <= hash) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, { hash, ordinal });
    if (list.length > this.size) list.pop();
  }

  ordinals(): Set<number> {
    return new Set(this.picked.map((p) => p.ordinal));
  }
}
