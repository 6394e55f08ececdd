import { parseRecordBatches, type ParseRecordsOptions, type RecordPosition, type SourceItem } from '../../formats/index.js';
import { Transform, type Readable } from 'node:stream';
import type { InputObject, InputSourceOptions } from '../../sources/index.js';
import { listStageInputs } from './stage-inputs.js';
import { createStageProcessor, type Accepted, type ChannelIdLookup, type Processed, type UserNameLookup } from '../../transform/index.js';
import { stageUsesUserRefs, userNamesOf } from './user-names.js';
import { processedChannelKey, rawChannelKey, sampledChannelKeys, trialCut, trialSkip, type TrialCut } from './trial.js';
import { stageProcessorSpec, type PipelineConfig, type ShardSpec, type StageConfig } from '../../config/index.js';
import { readSlackStageBatches } from '../slack/index.js';
import { platformExportReader } from '../platform-export/index.js';
import { inputReadFailure } from './input-errors.js';
import { listingOf, type InputListing } from './input-listing.js';
import { keepOwned, ownsProcessed, ownsRecord, shardTakesAll } from '../shards/shard-filter.js';
import { ForeignKeys, foreignKeyReader } from '../shards/foreign-keys.js';
import { ForeignNames } from '../shards/foreign-names.js';
import { ForeignRenames } from '../shards/foreign-renames.js';
import type { Holder } from './name-holders.js';
import { checkS3Endpoint, isS3Url } from '../../shared/s3-location.js';
import { sentChannelRecords } from '../shards/sent-channels.js';
import type { RefusedChannel } from '../shards/refused-channels.js';
import type { EarlierRoots } from './replies/earlier-roots.js';

export interface ReadStageDeps {
  channelIds?: ChannelIdLookup;
  /** `ref: user` entries; when absent and the stage has some, read from the users stage (user-names.ts). */
  userNames?: UserNameLookup;
  sources?: InputSourceOptions;
  signal?: AbortSignal;
  /** Told the input's bytes read so far and, when every object's size is known, the total (for an ETA). */
  onInputBytes?: (read: number, total: number | undefined) => void;
  /**
   * Sharded: whether the channels stage's checks refuse a channel record against the platform (an unknown
   * member, a name another record holds there). Such a channel is never sent, so it claims no name and
   * another shard's record in it holds no key (refused-channels.ts). Absent: none is taken for refused.
   */
  refusedChannel?: RefusedChannel;
  /**
   * Sharded, a channels stage of `mode: upsert`: the platform's channel names, each with whose record holds
   * it, as the checks read them. A name another shard's earlier record renames away is free for this
   * shard's record only once that shard has sent the rename (foreign-renames.ts).
   */
  heldChannelNames?: ReadonlyMap<string, Holder>;
  /** Shown every batch of source records as parsed, before mapping (e.g. to see which fields the input has). */
  onSourceBatch?: (batch: readonly SourceItem[]) => void;
  /**
   * Told, once every object of a file stage was read to its end, what was read: each object's size and
   * version as its read found them (an object replaced after the run listed it is read in its new version).
   */
  onInputsRead?: (listing: InputListing) => void;
  /** Told what an export reader could not do as documented, every record still accounted for (the Slack reorder window). */
  onReaderWarning?: (message: string) => void;
  /** Roots earlier runs of the state folder imported (an export's replies to them go into their threads). */
  earlierRoots?: EarlierRoots;
}

/**
 * One stage's input as processed records, in batches (a few hundred records: what the parser took from one
 * input buffer): every source location expanded (globs, prefixes), every object parsed in a stable order,
 * every record mapped and validated. Each read yields the same records in the same order, which is what
 * lets a resumed run rebuild byte-identical chunks.
 */
export async function* readStageBatches(config: PipelineConfig, stage: StageConfig, deps: ReadStageDeps): AsyncGenerator<Processed[]> {
  const cut = config.trial ? await trialCutOf(config, stage, deps) : undefined;
  // Stages of an export block (`slack:`, `discord:`, `mattermost:`) are read and mapped by that export's reader.
  if (stage.slack || stage.platformExport) {
    const batches = stage.slack
      ? readSlackStageBatches(config, stage, stage.slack, deps)
      : platformExportReader(stage.platformExport!.platform).readStageBatches(config, stage, stage.platformExport!, deps);
    const owned = ownedByShard(config, stage, batches);
    return yield* cut ? cutProcessed(stage, owned, cut) : owned;
  }
  yield* readSourceBatches(config, stage, deps, cut);
}

/**
 * A shard's records of an export stage. The Slack reader leaves out other shards' conversations itself
 * (it never opens their folders), so its messages pass through as they are.
 */
async function* ownedByShard(config: PipelineConfig, stage: StageConfig, batches: AsyncGenerator<Processed[]>): AsyncGenerator<Processed[]> {
  const shard = config.shard;
  if (shard === undefined || shardTakesAll(stage) || (stage.slack && stage.stage === 'messages')) return yield* batches;
  for await (const batch of batches) {
    const kept = keepOwned(batch, (p) => ownsProcessed(shard, stage, p));
    if (kept.length > 0) yield kept;
  }
}

async function trialCutOf(config: PipelineConfig, stage: StageConfig, deps: ReadStageDeps): Promise<TrialCut> {
  const trial = config.trial!;
  const whole = { ...config, trial: undefined };
  const sampled = trial.sample === undefined ? undefined : await sampledChannelKeys(config, trial.sample, (channels) => readStageRecords(whole, channels, readOnlyDeps(deps)));
  return trialCut(stage, trial, sampled);
}

/** A trial's cut applied after mapping (the Slack reader maps as it reads). */
async function* cutProcessed(stage: StageConfig, batches: AsyncIterable<Processed[]>, cut: TrialCut): AsyncGenerator<Processed[]> {
  let ordinal = 0;
  for await (const batch of batches) {
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      const because = cut(++ordinal, processedChannelKey(stage, p));
      if (because !== undefined) batch[i] = trialSkip(p.position, because);
    }
    yield batch;
  }
}

/** readStageBatches one record at a time (the channels stage read again for its keys, tests). */
export async function* readStageRecords(config: PipelineConfig, stage: StageConfig, deps: ReadStageDeps): AsyncGenerator<Processed> {
  for await (const batch of readStageBatches(config, stage, deps)) yield* batch;
}

async function* readSourceBatches(
  config: PipelineConfig,
  stage: StageConfig,
  deps: ReadStageDeps,
  cut: TrialCut | undefined,
): AsyncGenerator<Processed[]> {
  const userNames = deps.userNames ?? (stageUsesUserRefs(stage) ? await userNamesOf(config, (users) => readStageRecords(config, users, readOnlyDeps(deps))) : undefined);
  const newProcessor = () => createStageProcessor(stageProcessorSpec(config, stage), { ...(deps.channelIds ? { channelIds: deps.channelIds } : {}), ...(userNames ? { userNames } : {}) });
  const process = newProcessor();
  // Listing first (files and keys are few next to records) gives the total size for progress.
  const inputs = await listStageInputs(stage, deps.sources ?? {});
  const total = inputs.every((i) => i.size !== undefined) ? inputs.reduce((n, i) => n + (i.size ?? 0), 0) : undefined;
  let read = 0;
  let ordinal = 0;
  const shard = config.shard !== undefined && !shardTakesAll(stage) ? config.shard : undefined;
  // A channel's key never falls to two shards; a member's or message's may (foreign-keys.ts).
  const lastWins = stage.options.duplicates === 'last-wins';
  const foreign = shard !== undefined && stage.stage !== 'channels' ? new ForeignKeys(typeof stage.key === 'string' ? stage.key : stage.key.join(', '), lastWins ? 'last' : 'first') : undefined;
  const foreignKeyOf = foreign ? foreignKeyReader(stage) : undefined;
  // A channel's name may (foreign-names.ts).
  // Under last-wins, a channel record a later one of its key supersedes is never sent: it holds no name.
  const renames = shard !== undefined && deps.heldChannelNames ? new ForeignRenames(deps.heldChannelNames, shard, await channelRecordsSent(config, stage, deps)) : undefined;
  const foreignNames = shard !== undefined && stage.stage === 'channels' ? new ForeignNames(lastWins ? await lastRecordOfKeys(stage, inputs, newProcessor(), deps.signal) : undefined, deps.refusedChannel, renames) : undefined;
  // Another shard's record in a channel one run would neither send (rejected, or not in the input) nor find on
  // the platform (made by an earlier run) holds no key, as in one run.
  const sent = foreign ? await channelsSent(config, deps) : undefined;
  const held = deps.channelIds;
  const heldOnPlatform = (key: string) => held !== undefined && (typeof held === 'function' ? held(key) : held.get(key)) !== undefined;
  const holdsKey = (channelKey: string | undefined) => sent === undefined || channelKey === undefined || sent.has(channelKey) || heldOnPlatform(channelKey);
  deps.onInputBytes?.(0, total);
  let seq = 0;
  try {
    if (foreign && lastWins) await noteLaterForeignKeys(stage, inputs, shard!, foreign, (item) => (holdsKey('record' in item ? rawChannelKey(stage, item.record) : undefined) ? foreignKeyOf!(item) : undefined), deps.signal);
    for (const input of inputs) {
      if (deps.signal?.aborted) return;
      const bytes = countBytes(input.open(), (n) => {
        read += n;
        deps.onInputBytes?.(read, total);
      });
      const batches = parseRecordBatches(bytes, parseOptionsOf(stage, input.uri));
      let last: RecordPosition | undefined;
      try {
        for await (const batch of batches) {
          deps.onSourceBatch?.(batch);
          const out: Processed[] = [];
          for (let i = 0; i < batch.length; i++) {
            const item = batch[i]!;
            seq++;
            const channelKey = 'record' in item ? rawChannelKey(stage, item.record) : undefined;
            // Another shard's record is its to read, map and count (a sharded run's accounting is the sum of its
            // shards'); only its key is noted, so that a record of this shard with the same key is told apart.
            if (shard !== undefined && !ownsRecord(shard, channelKey, item.position)) {
              if (!lastWins && holdsKey(channelKey)) foreign?.noteForeign(foreignKeyOf!(item), item.position, seq);
              foreignNames?.note(process(item), seq);
              continue;
            }
            // A record a trial leaves out is never mapped: its reason is the cut, not what mapping would find.
            const because = cut?.(++ordinal, channelKey);
            let processed = because === undefined ? process(item) : trialSkip(item.position, because);
            if (foreign && processed.kind === 'accepted') processed = lastWins ? markSuperseded(foreign, processed, seq) : foreign.check(processed);
            if (foreignNames && processed.kind === 'accepted') processed = foreignNames.check(processed, seq);
            out.push(processed);
            // A long body split into parts (longBodies: split): the parts follow, each a record of its own.
            if (processed.kind === 'accepted' && processed.parts) for (const part of processed.parts) out.push(part);
          }
          last = batch[batch.length - 1]?.position ?? last;
          yield out;
          // Checked per batch so that a signal stops reading promptly; the generator's return closes the file.
          if (deps.signal?.aborted) return;
        }
      } catch (error) {
        throw inputReadFailure(stage, input.uri, last, error);
      }
    }
    deps.onInputsRead?.(listingOf(inputs.map(asRead)));
  } finally {
    foreign?.close();
  }
}

/** Sharded: the channel keys one run's channels stage would send (sent-channels.ts); undefined without a channels stage. */
async function channelsSent(config: PipelineConfig, deps: ReadStageDeps): Promise<Set<string> | undefined> {
  const channels = config.stages.find((s) => s.stage === 'channels');
  if (channels === undefined || channels.source === undefined) return undefined;
  return new Set((await channelRecordsSent(config, channels, deps)).keys());
}

/** Every shard's records of the channels stage, read once more: those one run would send, by key (sent-channels.ts). */
async function channelRecordsSent(config: PipelineConfig, channels: StageConfig, deps: ReadStageDeps): Promise<Map<string, Accepted>> {
  const records: Processed[] = [];
  for await (const p of readStageRecords({ ...config, shard: undefined }, channels, readOnlyDeps(deps))) records.push(p);
  return sentChannelRecords(records, channels.options.duplicates === 'last-wins', deps.refusedChannel);
}

/** `input` with the size and version its read found, where the store said. */
function asRead(input: InputObject): InputObject {
  const read = input.readAs?.();
  if (!read) return input;
  const version = read.version ?? input.version;
  return { uri: input.uri, size: read.size ?? input.size, ...(version !== undefined ? { version } : {}), open: () => input.open() };
}

/**
 * `duplicates: last-wins`, sharded: every other shard's record key with its place in the input, read before
 * this shard's records (a record of this shard loses to a later one of another shard: foreign-keys.ts).
 * Parsing only, no mapping.
 */
async function noteLaterForeignKeys(
  stage: StageConfig,
  inputs: InputObject[],
  shard: ShardSpec,
  foreign: ForeignKeys,
  foreignKeyOf: (item: SourceItem) => string | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  await forEachSourceRecord(stage, inputs, signal, (item, seq) => {
    if (!ownsRecord(shard, 'record' in item ? rawChannelKey(stage, item.record) : undefined, item.position)) foreign.noteForeign(foreignKeyOf(item), item.position, seq);
  });
}

/**
 * `duplicates: last-wins`, sharded channels stage: each source key's last accepted record (its `seq`), every
 * shard's, mapped by a processor of its own (the main read's numbers names with `unique: suffix`). As one
 * run's first pass does (stage-duplicates.ts), a rejected record supersedes nothing.
 */
async function lastRecordOfKeys(stage: StageConfig, inputs: InputObject[], process: (item: SourceItem) => Processed, signal: AbortSignal | undefined): Promise<Map<string, number>> {
  const last = new Map<string, number>();
  await forEachSourceRecord(stage, inputs, signal, (item, seq) => {
    const processed = process(item);
    if (processed.kind === 'accepted') last.set(processed.sourceKey, seq);
  });
  return last;
}

/** Every record of the stage's input, parsed (not mapped), with `seq` counted as readSourceBatches counts it. */
async function forEachSourceRecord(stage: StageConfig, inputs: InputObject[], signal: AbortSignal | undefined, visit: (item: SourceItem, seq: number) => void): Promise<void> {
  let seq = 0;
  for (const input of inputs) {
    let last: RecordPosition | undefined;
    try {
      for await (const batch of parseRecordBatches(input.open(), parseOptionsOf(stage, input.uri))) {
        for (const item of batch) visit(item, ++seq);
        last = batch[batch.length - 1]?.position ?? last;
        if (signal?.aborted) return;
      }
    } catch (error) {
      throw inputReadFailure(stage, input.uri, last, error);
    }
  }
}

/** An accepted record of this shard that a later record of another shard supersedes is marked so (last-wins). */
function markSuperseded(foreign: ForeignKeys, processed: Accepted, seq: number): Accepted {
  const later = foreign.supersededBy(processed.sourceKey, seq);
  if (later !== undefined) processed.supersededBy = later;
  return processed;
}

/** What reading another stage for a look-up table needs of this read's deps (no progress callbacks). */
function readOnlyDeps(deps: ReadStageDeps): ReadStageDeps {
  return { ...(deps.sources ? { sources: deps.sources } : {}), ...(deps.signal ? { signal: deps.signal } : {}), ...(deps.refusedChannel ? { refusedChannel: deps.refusedChannel } : {}) };
}

/** How one input object of a stage is parsed (the stage reader and the pre-flight read it alike). */
export function parseOptionsOf(stage: StageConfig, file: string): ParseRecordsOptions {
  const { source } = stage;
  // A JSON integer beyond 2^53 stays a number (a bigint) to the item; as text the mapping reads its digits.
  return { file, gzip: source.gzip, encoding: source.encoding, csv: source.csv, bigIntegers: 'bigint', ...(source.format ? { format: source.format } : {}) };
}

/** Passes bytes through, telling how many went by; closing either end closes the other. */
function countBytes(source: Readable, onBytes: (n: number) => void): Readable {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      onBytes(chunk.length);
      callback(null, chunk);
    },
  });
  source.on('error', (error) => counter.destroy(error));
  counter.on('close', () => source.destroy());
  return source.pipe(counter);
}

/** The S3 settings of a pipeline file, as the sources take them. */
export function sourceOptionsOf(config: PipelineConfig, signal?: AbortSignal, env: NodeJS.ProcessEnv = process.env): InputSourceOptions {
  // As for the export: the SDK's endpoint variables name an S3-compatible store too, which takes the
  // custom endpoint's defaults (path style, a region, WHEN_REQUIRED), or a host name endpoint fails.
  const endpoint = config.s3?.endpoint ?? (env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined);
  // Only a pipeline that reads S3 depends on it: a local one runs whatever the variables say.
  if (endpoint && config.stages.some((stage) => stage.source.paths.some(isS3Url)))
    checkS3Endpoint(endpoint, config.s3?.endpoint !== undefined ? 's3.endpoint in the pipeline file' : env.AWS_ENDPOINT_URL_S3 ? '$AWS_ENDPOINT_URL_S3' : '$AWS_ENDPOINT_URL');
  const { region, forcePathStyle, checksums } = config.s3 ?? {};
  const s3 = {
    // The signal stops S3 requests under way (SIGTERM); local reads end between records anyway.
    ...(signal ? { signal } : {}),
    ...(forcePathStyle !== undefined ? { forcePathStyle } : {}),
    ...(region ? { region } : {}),
    ...(endpoint ? { endpoint } : {}),
    ...(checksums ? { checksums } : {}),
  };
  return Object.keys(s3).length > 0 ? { s3 } : {};
}
