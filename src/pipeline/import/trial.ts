import type { PipelineConfig, StageConfig, TrialSpec } from '../../config/index.js';
import { sourceKeyOf, type Processed } from '../../transform/index.js';
import type { RecordPosition } from '../../formats/index.js';
import { hash64 } from '../verify/key-set.js';
import { UsageError } from '../../shared/errors.js';

/**
 * Trial runs (`--limit`, `--sample`): a quick rehearsal of a new pipeline on part of its input. The records
 * left out are counted as skipped, with the reason, so a trial's report still balances; every reader of the
 * pipeline (import, its resume, validate, verify) cuts the same way because the cut is part of the config.
 */

/** Why a record is left out of a trial, or undefined when it is in. */
export type TrialCut = (ordinal: number, channelKey: string | undefined) => string | undefined;

export function describeTrial(trial: TrialSpec): string {
  const parts: string[] = [];
  if (trial.limit !== undefined) parts.push(`the first ${trial.limit} records of each stage`);
  if (trial.sample !== undefined) parts.push(`${trial.sample} sampled channels with their members and messages, and every user`);
  return parts.join('; ');
}

/**
 * The cut of one stage. `sampled` is the channel keys in the sample (sampledChannelKeys); `channelKey` is
 * the channels stage's own key, or the channel a member or message names.
 */
export function trialCut(stage: StageConfig, trial: TrialSpec, sampled: ReadonlySet<string> | undefined): TrialCut {
  const limit = trial.limit;
  const bySample = sampled !== undefined && stage.stage !== 'users';
  return (ordinal, channelKey) => {
    if (limit !== undefined && ordinal > limit) return `beyond --limit ${limit}`;
    if (bySample && (channelKey === undefined || !sampled.has(channelKey))) return `not in --sample ${trial.sample}`;
    return undefined;
  };
}

/** The channel key a source record of a stage stands for or names (before mapping: cut records are never mapped). */
export function rawChannelKey(stage: StageConfig, record: Record<string, unknown>): string | undefined {
  if (stage.stage === 'channels') {
    const fields = typeof stage.key === 'string' ? [stage.key] : stage.key;
    return sourceKeyOf(fields.map((f) => record[f]));
  }
  return stage.channel === undefined ? undefined : sourceKeyOf([record[stage.channel]]);
}

/** The channel key of a processed record (Slack stages cut after their reader has mapped them). */
export function processedChannelKey(stage: StageConfig, p: Processed): string | undefined {
  if (p.kind !== 'accepted') return p.channelKey;
  return stage.stage === 'channels' ? p.sourceKey : p.channelKey;
}

export function trialSkip(position: RecordPosition, because: string): Processed {
  return { kind: 'skipped', position, rule: -1, because, trial: true };
}

const samples = new WeakMap<PipelineConfig, Promise<ReadonlySet<string>>>();

/**
 * The sample: the `n` channel keys with the lowest hashes among the channels the channels stage accepts, so
 * the pick spreads over the input and is the same on every read and every machine.
 */
export function sampledChannelKeys(config: PipelineConfig, n: number, readChannels: (stage: StageConfig) => AsyncIterable<Processed>): Promise<ReadonlySet<string>> {
  let pending = samples.get(config);
  if (pending === undefined) {
    pending = pickSample(config, n, readChannels);
    samples.set(config, pending);
    pending.catch(() => samples.delete(config));
  }
  return pending;
}

async function pickSample(config: PipelineConfig, n: number, readChannels: (stage: StageConfig) => AsyncIterable<Processed>): Promise<ReadonlySet<string>> {
  const stage = config.stages.find((s) => s.stage === 'channels');
  if (stage === undefined) return new Set();
  const hashed: Array<{ key: string; hash: number }> = [];
  for await (const p of readChannels(stage)) if (p.kind === 'accepted') hashed.push({ key: p.sourceKey, hash: hash64(`sample\u0000${p.sourceKey}`)[0] });
  hashed.sort((a, b) => a.hash - b.hash || (a.key < b.key ? -1 : 1));
  return new Set(hashed.slice(0, n).map((h) => h.key));
}

export function sameTrial(a: TrialSpec | undefined, b: TrialSpec | undefined): boolean {
  return a?.limit === b?.limit && a?.sample === b?.sample;
}

const trialFlags = (t: TrialSpec | undefined) =>
  t === undefined || (t.limit === undefined && t.sample === undefined) ? 'no --limit or --sample' : [t.limit !== undefined ? `--limit ${t.limit}` : '', t.sample !== undefined ? `--sample ${t.sample}` : ''].filter(Boolean).join(' ');

/** A resumed run must read the input as its first attempt did, or its chunks would not be the same. */
export function trialMismatch(recorded: TrialSpec | undefined, given: TrialSpec | undefined): UsageError {
  return new UsageError(
    `the unfinished run was started with ${trialFlags(recorded)}, this one has ${trialFlags(given)}: resume it with the same flags, or pass --restart to start a new run`,
    { recorded: recorded ?? null, given: given ?? null },
  );
}
