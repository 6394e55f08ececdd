import { readFile } from 'node:fs/promises';
import { deletedSinceImported } from '../state/earlier-imports.js';
import { join } from 'node:path';
import type { Int64 } from '../../shared/int64.js';
import { parseJsonExact, stringifyJson } from '../../shared/lossless-json.js';
import { CHANNEL_KEY_PROPERTY, comparedFieldsOf, PIPELINE_PROPERTY, type Accepted } from '../../transform/index.js';
import { writeFileAtomic } from '../state/atomic-file.js';
import { adoptUnmarkedChannel, ambiguous, collectChannelKeys, findDirectHolder, listPipelineChannels } from './channel-ids.js';
import type { HeldCopy } from './held-messages.js';
import type { HeldRecordsInput } from './held-records.js';
import type { HeldParts } from './split-parts.js';

/**
 * What the platform held for this pipeline when the stage first started, by source key. Kept in the run
 * folder: a resumed stage compares with the same snapshot, so it rebuilds the same chunks (records its
 * first attempt created are not taken for "held" the second time).
 */
interface Snapshot {
  /** By source key. */
  records: Record<string, HeldCopy>;
  /**
   * DIRECT channel items whose members already have a DIRECT channel that another pipeline made, or that
   * this pipeline made for another source key (`key`; the platform keeps one per member set).
   */
  foreignDirect: Record<string, ForeignDirect>;
  /**
   * Channels: the ids of this pipeline's channels the platform held already. Only these can hold an earlier
   * run's messages that are certainly this pipeline's (a DIRECT channel made outside chatport may hold any
   * pipeline's); absent in snapshots of older versions.
   */
  existed?: Int64[];
}

/** The DIRECT channel another pipeline made for a channel item's members, or this pipeline for another source key (`key`). */
export interface ForeignDirect {
  id: Int64;
  pipeline: string;
  key?: string;
}

/** A held record found by its key (users and channels: the snapshot object; messages: held-message-copies.ts). */
export interface HeldCopies {
  find(key: string): HeldCopy | undefined;
  /** Messages whose key hashes their text (Mattermost): the copy held under an earlier text's key (held-message-copies.ts). */
  earlierVersion?(record: Accepted, key: string): { key: string; copy: HeldCopy } | undefined;
  /** Messages: the copy of a key not held in its own channel that another held channel holds. */
  elsewhere(key: string): HeldElsewhere | undefined;
  /**
   * Messages: the parts held of a record whose first part this is (split-parts.ts); `followed` when the
   * channel holds later messages after them. `claimed`: look-up keys of records read so far whose own key
   * has a part's shape; they are never taken for parts.
   */
  parts(record: Accepted, key: string, claimed: ReadonlySet<string>): FollowedParts | undefined;
  foreignDirect(key: string): ForeignDirect | undefined;
  /**
   * The run of this state folder that imported the record of this idempotency key, which the platform no
   * longer holds (deleted there since; a message: in a held channel), or undefined.
   */
  deletedSince?(idempotencyKey: string): string | undefined;
  close(): void;
}

export type FollowedParts = HeldParts & { followed: boolean };

/** A message held in another channel than the one its record names: the platform's copy and that channel. */
export interface HeldElsewhere {
  copy: HeldCopy;
  channel: { id: string; key?: string };
}

/** Users and channels (a few per channel or user): one snapshot object, saved whole. */
export async function openSnapshotCopies(input: HeldRecordsInput, stage: 'users' | 'channels'): Promise<HeldCopies> {
  const file = join(input.paths.runDir(input.runId), 'held', `${stage}.json`);
  let snapshot = await readSnapshot(file);
  if (!snapshot) {
    snapshot = stage === 'users' ? await usersSnapshot(input) : await channelsSnapshot(input);
    await writeFileAtomic(file, stringifyJson(snapshot));
  }
  const { records, foreignDirect } = snapshot;
  // This pipeline's records an earlier run imported that the platform no longer holds: deleted there since.
  const deleted = await deletedSinceImported(input.paths, input.runId, stage, (item) => {
    const key = (item.properties as Record<string, unknown> | undefined)?.[CHANNEL_KEY_PROPERTY];
    return typeof key === 'string' && records[key] === undefined;
  });
  return {
    find: (key) => records[key], elsewhere: () => undefined, parts: () => undefined, foreignDirect: (key) => foreignDirect[key],
    deletedSince: (idempotencyKey) => deleted.get(idempotencyKey), close: () => undefined,
  };
}

async function usersSnapshot({ client, config, signal }: HeldRecordsInput): Promise<Snapshot> {
  const records: Snapshot['records'] = {};
  for await (const user of client.users.list({ pageSize: 100, properties: { [PIPELINE_PROPERTY]: config.id }, signal })) {
    const key = user.properties?.[CHANNEL_KEY_PROPERTY];
    if (user.properties?.[PIPELINE_PROPERTY] !== config.id || typeof key !== 'string') continue;
    const other = records[key];
    if (other) throw ambiguous('user', config.id, key, [other.id, user.id]);
    records[key] = { id: user.id, fields: comparedFieldsOf('users', user) };
  }
  return { records, foreignDirect: {} };
}

async function channelsSnapshot({ client, config, stage, sources, signal }: HeldRecordsInput): Promise<Snapshot> {
  const records: Snapshot['records'] = {};
  for (const [key, channel] of await listPipelineChannels(client, config.id, signal)) records[key] = { id: channel.id, fields: comparedFieldsOf('channels', channel) };
  const foreignDirect: Snapshot['foreignDirect'] = {};
  // Only items not found among this pipeline's channels are looked up: DIRECT ones by members, named ones by name.
  const { directByMembers, names } = await collectChannelKeys(config, stage, sources, signal);
  for (const [key, name] of names) {
    if (records[key]) continue;
    const adopted = await adoptUnmarkedChannel(client, config.id, key, name, signal);
    if (adopted) records[key] = { id: adopted.id, fields: comparedFieldsOf('channels', adopted) };
  }
  for (const [members, key] of directByMembers) {
    if (records[key]) continue;
    const holder = await findDirectHolder(client, config.id, members.split('\u0000'), signal);
    if (holder.kind === 'foreign') foreignDirect[key] = { id: holder.id, pipeline: holder.pipeline };
    else if (holder.kind === 'unmarked' && holder.key !== undefined && holder.key !== key) foreignDirect[key] = { id: holder.id, pipeline: config.id, key: holder.key };
  }
  return { records, foreignDirect, existed: Object.values(records).map((r) => r.id) };
}

/**
 * This pipeline's channels the platform held before this run's channels stage (its snapshot), as decimal
 * ids: only they can hold an earlier run's messages known to be this pipeline's. Undefined when the run has
 * no such snapshot (no channels stage, or one of an older version).
 */
export async function channelsThatExisted(runDir: string): Promise<ReadonlySet<string> | undefined> {
  const saved = await readChannelsSnapshot(runDir);
  return saved?.existed === undefined ? undefined : new Set(saved.existed.map(String));
}

/** The channels stage's snapshot (the messages stage compares in the channels it names), undefined when absent. */
export const readChannelsSnapshot = (runDir: string): Promise<Snapshot | undefined> => readSnapshot(join(runDir, 'held', 'channels.json'));

const readSnapshot = (file: string): Promise<Snapshot | undefined> => readFile(file, 'utf8').then((t) => parseJsonExact(t, 'bigint') as Snapshot, () => undefined);
