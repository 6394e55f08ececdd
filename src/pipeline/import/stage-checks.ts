import type { ChatportClient } from '../../api/index.js';
import type { PipelineConfig, StageConfig } from '../../config/index.js';
import { CHANNEL_KEY_PROPERTY, type Reason } from '../../transform/index.js';
import { heldByAnother, holderOf, namesHeldByStrangers, ourNamesByKey, type Holder } from './name-holders.js';
import { membersKey } from './channel-ids.js';
import { reason } from '../../transform/types.js';
import { refusedChannelOf, type RefusedChannel } from '../shards/refused-channels.js';

/** Names the platform holds, each with whose record holds it (name-holders.ts). */
type Holders = Map<string, Holder>;

export interface StageCheckHooks {
  crossCheck(item: Record<string, unknown>): Reason[];
  onAccepted(item: Record<string, unknown>, sourceKey: string): void;
  /** Whether these checks refuse a channel record against the platform (a sharded read needs it: ReadStageDeps.refusedChannel). */
  refusedChannel: RefusedChannel;
  /** A sharded upsert channels stage: the platform's channel names the checks judge by (ReadStageDeps.heldChannelNames). */
  heldChannelNames?: ReadonlyMap<string, Holder>;
}

/**
 * The checks a record passes before its stage uploads it, so that what `chatport validate` or one look at
 * the platform can tell is rejected with its field and reason instead of costing FAILED jobs and a
 * bisection (which stays for what only the platform can refuse):
 * - a username or channel name already held on the platform by another record: one this pipeline did not
 *   create, or this pipeline's of another source key (a second workspace's user of the same name);
 * - channel members and creators, member usernames and message authors that no user answers to: with a
 *   client, users the platform holds (read after the users stage, so it holds what that stage imported);
 *   offline (`validate`, a dry run), users the users stage produces;
 * - with a client, the same references to a name the pipeline's own users stage has, but which the
 *   platform holds for another user (so the stage's user was rejected, its name taken): sent, the record
 *   would belong to that other user. With `onExisting`, a user matched to the holder of its own name is
 *   the user's choice (existing-users.ts); one left unmatched (`matchBy` a property that found no one, or
 *   found someone else) is not.
 * - a DIRECT channel whose set of members an earlier DIRECT record of the run has: the platform holds one
 *   DIRECT channel per set of members (decisions.md), so the second would be counted imported while its
 *   messages landed in the first.
 * - a username or channel name that an earlier record of the stage (another source key) was sent with: the
 *   platform holds one record per name, so it would refuse one of the two, and which one would depend on
 *   which chunk's job ran first. The first in source order keeps the name, on every run.
 * The platform is read in pages of 100 into one Map of names per kind, once per stage that needs it.
 */
export class StageChecks {
  private readonly produced = new Set<string>();
  private readonly hasUsersStage: boolean;
  private users: Holders | undefined;
  /** The users read last may have changed since: the users stage ran after them. */
  private usersStale = true;

  /** Each DIRECT member set sent by the channels stage → the source key of the record that sent it. */
  private readonly directSets = new Map<string, string>();

  /** Names of the users stage's source the platform holds for another user (see above). */
  private othersNames: Set<string> | undefined;

  /** The known names by their folded form (lookAlikeNames), made at the first unknown name of a stage. */
  private lookAlikes: Map<string, string> | undefined;

  /** `sourceUserNames`: the users stage's source key → name (user-names.ts: read once per pipeline config). */
  constructor(
    private readonly config: PipelineConfig,
    private readonly client: ChatportClient | undefined,
    private readonly signal?: AbortSignal,
    private readonly sourceUserNames?: () => Promise<ReadonlyMap<string, string>>,
  ) {
    this.hasUsersStage = config.stages.some((s) => s.stage === 'users');
  }

  /** The hooks for one stage's run; reads from the platform what the stage's checks need. */
  async forStage(stageConfig: StageConfig): Promise<StageCheckHooks> {
    const stage = stageConfig.stage;
    this.lookAlikes = undefined;
    if (this.client && stage !== 'users' && this.usersStale) await this.readUsers();
    if (this.client && stage === 'users') {
      await this.readUsers();
      this.usersStale = true;
    }
    const channels = this.client && stage === 'channels' ? await this.readChannels() : undefined;
    // Name → the source key of the stage's record sent with it (compared exactly, as the platform does).
    const sentNames = new Map<string, string>();
    // Names the platform held for records of the stage that an earlier record renamed (mode: upsert patched it).
    const holders = stage === 'users' ? this.users : channels;
    const released = new Set<string>();
    let heldNames: Map<string, string> | undefined;
    const renames = await this.sourceRenames(stageConfig);
    if (stage !== 'users') await this.findOthersNames();
    const known = (field: string, name: unknown): Reason[] => {
      if (typeof name !== 'string') return [];
      if (!this.knows(name)) return [this.unknownUser(field, name)];
      return this.othersNames?.has(name) ? [this.othersUser(field, name)] : [];
    };
    const knownUser = (name: string) => this.knows(name) && !(this.othersNames?.has(name) ?? false);
    // Sharded, a members or messages stage reads the channels stage's records again (sent-channels.ts).
    const channelHolders = stage === 'channels' ? channels : this.client && this.config.shard && stage !== 'users' ? await this.readChannels() : undefined;
    const refusedChannel = refusedChannelOf(knownUser, channelHolders);
    const crossCheck = (item: Record<string, unknown>): Reason[] => {
      switch (stage) {
        case 'users':
          return [...takenName(this.users, released, 'name', item.name, keyOf(item), 'username', this.config.id, renames), ...nameSentBefore(sentNames, item.name, keyOf(item), 'username')];
        case 'channels': {
          const members = Array.isArray(item.members) ? item.members : [];
          const name = item.type === 'DIRECT' ? undefined : item.name;
          return [
            ...members.flatMap((m, i) => known(`members.${i}`, m)),
            ...known('creator', item.creator),
            ...takenName(channels, released, 'name', name, keyOf(item), 'channel name', this.config.id),
            ...nameSentBefore(sentNames, name, keyOf(item), 'channel name'),
            ...(item.type === 'DIRECT' ? this.directSetTaken(members, keyOf(item)) : []),
          ];
        }
        case 'members':
          return known('username', item.username);
        case 'messages':
          return known('user', item.user);
      }
    };
    const onAccepted = (item: Record<string, unknown>, sourceKey: string) => {
      if (stage === 'users' && typeof item.name === 'string') this.produced.add(item.name);
      const name = stage === 'users' || (stage === 'channels' && item.type !== 'DIRECT') ? item.name : undefined;
      if (typeof name === 'string' && !sentNames.has(name)) sentNames.set(name, sourceKey);
      if (typeof name === 'string' && holders) {
        heldNames ??= ourNamesByKey(holders);
        const before = heldNames.get(sourceKey);
        if (before !== undefined && before !== name) released.add(before);
      }
      // Claimed only by a record that is sent: a duplicate dropped or a record superseded (last-wins) creates no channel.
      if (stage === 'channels' && item.type === 'DIRECT' && Array.isArray(item.members)) {
        const set = directSetOf(item.members);
        if (!this.directSets.has(set)) this.directSets.set(set, sourceKey);
      }
    };
    // Sharded, a rename another shard's record makes frees its name only once that shard has sent it (foreign-renames.ts).
    const renamesAcrossShards = stage === 'channels' && this.config.shard !== undefined && stageConfig.options.mode === 'upsert' && channels !== undefined;
    return { crossCheck, onAccepted, refusedChannel, ...(renamesAcrossShards ? { heldChannelNames: channels } : {}) };
  }

  /**
   * An upsert users stage with a client: the users stage's source names by key, so that a name held by one
   * of this pipeline's users the source renames is explained as such (takenName), not as another person.
   */
  private async sourceRenames(stageConfig: StageConfig): Promise<ReadonlyMap<string, string> | undefined> {
    if (stageConfig.stage !== 'users' || stageConfig.options.mode !== 'upsert' || !this.client || !this.sourceUserNames) return undefined;
    return this.sourceUserNames();
  }

  /** This pipeline's users as the platform holds them (read for the checks): source key → name; undefined offline. */
  pipelineUserNames(): Map<string, string> | undefined {
    if (!this.client || !this.users) return undefined;
    return ourNamesByKey(this.users);
  }

  private knows(name: string): boolean {
    if (this.client) return this.users!.has(name);
    return !this.hasUsersStage || this.produced.has(name);
  }

  private unknownUser(field: string, name: string): Reason {
    const r = this.client
      ? reason(field, 'a username the platform holds (imported by the users stage, or there before)', name)
      : reason(field, 'a username the users stage produces', name);
    r.message = this.client ? `${field}: no user '${name}' on the platform (the users stage did not import it, and it was not there before)` : r.message;
    this.lookAlikes ??= lookAlikeNames(this.client ? this.users!.keys() : this.produced);
    const alike = this.lookAlikes.get(foldName(name));
    if (alike !== undefined) r.message += lookAlikeHint(name, alike, this.client ? 'the platform holds' : 'the users stage produces');
    return r;
  }

  private othersUser(field: string, name: string): Reason {
    const holder = this.users!.get(name)!;
    const r = reason(field, `a user of pipeline ${this.config.id}`, name);
    const whose = holder.ours ? `is pipeline ${this.config.id}'s user of source key ${holder.key}` : `was not created by pipeline ${this.config.id}`;
    r.message = `${field}: the platform's user '${name}' ${whose}, not the users stage's own '${name}' (rejected there, the name being taken); sent, this record would belong to that other user${ONE_USER_HINT}`;
    return r;
  }

  /** A DIRECT channel's members, when a DIRECT record of another key sent earlier has the same set (see above). */
  private directSetTaken(members: unknown[], key: string | undefined): Reason[] {
    const set = directSetOf(members);
    if (!this.directSets.has(set)) return [];
    const first = this.directSets.get(set);
    if (first === key) return [];
    const r = reason('members', 'a set of members no other DIRECT channel of the run has', members);
    r.message = `members: the DIRECT channel of source key ${first ?? '(unknown)'} has the same members; the platform holds one DIRECT channel per set of members, so this one would not be created and its messages would land in that one`;
    return [r];
  }

  /** Once, with a client and a users stage: the source's names the platform holds for others (see above). */
  private async findOthersNames(): Promise<void> {
    if (this.othersNames !== undefined || !this.client || !this.sourceUserNames) return;
    if (!this.config.stages.some((s) => s.stage === 'users')) return;
    const users = this.users!;
    this.othersNames = namesHeldByStrangers(await this.sourceUserNames(), (name) => users.get(name), this.config.matchedUsers?.byKey);
  }

  private async readUsers(): Promise<void> {
    const users: Holders = new Map();
    for await (const user of this.client!.users.list({ pageSize: 100, ...(this.signal ? { signal: this.signal } : {}) })) users.set(user.name, holderOf(user.properties, this.config.id));
    this.users = users;
    this.usersStale = false;
  }

  private async readChannels(): Promise<Holders> {
    const channels: Holders = new Map();
    for await (const channel of this.client!.channels.list({ pageSize: 100, ...(this.signal ? { signal: this.signal } : {}) }))
      if (channel.type !== 'DIRECT') channels.set(channel.name, holderOf(channel.properties, this.config.id));
    return channels;
  }
}

/** A name an earlier record of the stage, of another source key, was sent with (see StageChecks). */
function nameSentBefore(sentNames: ReadonlyMap<string, string>, name: unknown, key: string | undefined, what: string): Reason[] {
  if (typeof name !== 'string') return [];
  const first = sentNames.get(name);
  if (first === undefined || first === key) return [];
  const r = reason('name', `a ${what} no earlier record of the stage has`, name);
  r.message = `name: ${what} '${name}' is the name of source key ${first}, an earlier record of this stage; the platform holds one record per name and would refuse one of the two. Give this record another name, or let chatport number it (unique: suffix, docs/mapping-language.md)`;
  return [r];
}

/** A DIRECT channel's identity on the platform: its set of members (the channel lookup's `membersKey`). */
const directSetOf = (members: unknown[]): string => membersKey([...new Set(members.map(String))]);

const ONE_USER_HINT = '. If both are one person, set the users stage\'s onExisting: match (an export block\'s onExistingUsers: match; docs/mapping-language.md)';

/** The source key chatport gave an item (its `chatportKey` property). */
function keyOf(item: Record<string, unknown>): string | undefined {
  const key = (item.properties as Record<string, unknown> | undefined)?.[CHANNEL_KEY_PROPERTY];
  return typeof key === 'string' ? key : undefined;
}

/**
 * A name the platform holds for another record (heldByAnother): the platform would refuse the item. Not one
 * `released`: its holder, an earlier record of the stage, was patched to another name before this record.
 */
function takenName(holders: Holders | undefined, released: ReadonlySet<string>, field: string, name: unknown, key: string | undefined, what: string, pipelineId: string, renames?: ReadonlyMap<string, string>): Reason[] {
  if (holders === undefined || typeof name !== 'string' || released.has(name)) return [];
  const holder = holders.get(name);
  if (!heldByAnother(holder, key)) return [];
  const r = reason(field, `a ${what} not taken on the platform`, name);
  const renamedTo = holder!.ours && holder!.key !== undefined ? renames?.get(holder!.key) : undefined;
  if (renamedTo !== undefined && renamedTo !== name) r.message = heldByRenamedMessage(field, what, name, holder!.key!, renamedTo);
  else
    r.message = holder!.ours
      ? `${field}: ${what} '${name}' is already taken on the platform by another record of pipeline ${pipelineId} (source key ${holder!.key})${what === 'username' ? ONE_USER_HINT : ''}`
      : `${field}: ${what} '${name}' is already taken on the platform by a record that pipeline ${pipelineId} did not create`;
  return [r];
}

/**
 * The name's holder is a record of the stage the source renames, but not before this record (it comes later,
 * or its rename was rejected): matching the two (onExisting) would merge two people, so that is not advised.
 */
function heldByRenamedMessage(field: string, what: string, name: string, holderKey: string, renamedTo: string): string {
  return `${field}: ${what} '${name}' is still held on the platform by source key ${holderKey}, which the source renames to '${renamedTo}' but not before this record (it comes later in the source, or its rename was rejected); the platform holds one ${what} per name at every moment. Put that record first, or, for two records swapping names, rename one through a free name in a run of its own`;
}

/** A name as a reader sees it: no spaces around it, one Unicode form, one letter case. */
function foldName(name: string): string {
  return name.trim().normalize('NFC').toLowerCase();
}

/** Folded name → a name that folds so (the first one). */
function lookAlikeNames(names: Iterable<string>): Map<string, string> {
  const byFold = new Map<string, string>();
  for (const name of names) {
    const fold = foldName(name);
    if (!byFold.has(fold)) byFold.set(fold, name);
  }
  return byFold;
}

/**
 * Why a name that reads like a known one is not it: the platform compares names exactly, so 'José' with a
 * combining accent, 'BOB', or ' bob ' (a cell of a list joined with ", ") would be rejected as unknown beside
 * 'José' or 'bob' with no visible reason.
 */
function lookAlikeHint(name: string, alike: string, who: string): string {
  const why = name.trim() === alike
    ? 'which differs in the spaces around it only (names are compared exactly): set trim: true on this field'
    : name.normalize('NFC') === alike.normalize('NFC')
    ? 'the same text in another Unicode form (an accent written with its letter or apart): set unicode: NFC on this field and on the users stage\'s name'
    : 'which differs in letter case only (names are compared exactly): set case: lower on this field and on the users stage\'s name';
  return `; ${who} '${alike}', ${why}`;
}
