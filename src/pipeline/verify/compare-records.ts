import { CHANNEL_KEY_PROPERTY, channelDisplayName, PIPELINE_PROPERTY } from '../../transform/index.js';
import type { Difference, SourcePosition } from './types.js';
import { samePatchedValue } from '../../shared/merge-patch.js';
import { unicodeFormNote } from '../../shared/unicode-forms.js';

/** A record the source says the platform holds, with where it came from. */
export interface Sourced<T> {
  sourceKey: string;
  position: SourcePosition;
  item: T;
}

export interface ExpectedUser {
  name: string;
  displayName?: string;
  isGuest?: boolean;
  properties?: Record<string, unknown>;
}

export interface PlatformUser {
  id: string;
  name: string;
  displayName?: string;
  isGuest?: boolean;
  properties?: Record<string, unknown>;
}

export interface ExpectedChannel {
  type: string;
  name?: string;
  displayName?: string;
  properties?: Record<string, unknown>;
  members: string[];
}

export interface PlatformChannel {
  id: string;
  type: string;
  name: string;
  displayName?: string;
  properties?: Record<string, unknown>;
  /** DIRECT channels carry their members; others are read from the members pages. */
  members?: string[];
}

/** Properties without the ones chatport adds to find its records again. */
export function ownProperties(properties: Record<string, unknown> | undefined): Record<string, unknown> {
  const own = { ...(properties ?? {}) };
  delete own[PIPELINE_PROPERTY];
  delete own[CHANNEL_KEY_PROPERTY];
  return own;
}

/**
 * Users by name: missing, changed (displayName, isGuest, properties), and extras the pipeline created. A
 * source user whose name the platform lacks while this pipeline's user of its key holds another name (one no
 * source user has) was renamed there: one `changed` user (field `name`), not a missing and an extra user.
 * `renamed` (source name → platform name) lets its memberships and messages be compared as that user's.
 */
export function compareUsers(
  expected: ReadonlyArray<Sourced<ExpectedUser>>,
  platform: readonly PlatformUser[],
  pipelineId: string,
  matched?: ReadonlyMap<string, { name: string }>,
  /** Whether a record of this pipeline not in the source counts as extra (run-verify.ts: judgedByExport). */
  judged: (record: { properties?: Record<string, unknown> | undefined }) => boolean = () => true,
): { differences: Difference[]; verified: number; renamed: Map<string, string> } {
  const byName = new Map(platform.map((u) => [u.name, u]));
  const ownByKey = new Map<string, PlatformUser>();
  for (const u of platform) if (u.properties?.[PIPELINE_PROPERTY] === pipelineId && typeof u.properties[CHANNEL_KEY_PROPERTY] === 'string') ownByKey.set(u.properties[CHANNEL_KEY_PROPERTY], u);
  const sourceNames = new Set(expected.map((u) => u.item.name));
  const differences: Difference[] = [];
  const renamed = new Map<string, string>();
  let verified = 0;
  const names = new Set<string>();
  for (const { sourceKey, position, item } of expected) {
    // A user matched to one the platform already had (onExisting): that user must still be there; its
    // content is the platform's own, not the source's.
    const match = matched?.get(sourceKey);
    if (match !== undefined) {
      if (byName.has(match.name)) verified++;
      else differences.push({ kind: 'missing', stage: 'users', sourceKey, position, message: `user "${match.name}" (matched to source user "${item.name}") is not on the platform` });
      continue;
    }
    names.add(item.name);
    const own = byName.has(item.name) ? undefined : ownByKey.get(sourceKey);
    const found = byName.get(item.name) ?? (own !== undefined && !sourceNames.has(own.name) ? own : undefined);
    if (!found) {
      differences.push({ kind: 'missing', stage: 'users', sourceKey, position, message: `user "${item.name}" is not on the platform` });
      continue;
    }
    const fields = found.name === item.name ? [] : ['name'];
    if (found.name !== item.name) {
      names.add(found.name);
      renamed.set(item.name, found.name);
    }
    if (item.displayName !== undefined && item.displayName !== found.displayName) fields.push('displayName');
    if (item.isGuest !== undefined && item.isGuest !== (found.isGuest ?? false)) fields.push('isGuest');
    if (!samePatchedValue(ownProperties(item.properties), ownProperties(found.properties))) fields.push('properties');
    if (fields.length === 0) verified++;
    else {
      const what = fields[0] === 'name' ? `is named "${found.name}" on the platform${formNote(found.name, item.name)}${fields.length > 1 ? `, and differs there in ${fields.slice(1).join(', ')}` : ''}` : `differs on the platform in ${fields.join(', ')}`;
      differences.push({ kind: 'changed', stage: 'users', sourceKey, position, platformId: found.id, fields, message: `user "${item.name}" ${what}` });
    }
  }
  for (const u of platform)
    if (u.properties?.[PIPELINE_PROPERTY] === pipelineId && !names.has(u.name) && judged(u))
      differences.push({ kind: 'extra', stage: 'users', platformId: u.id, message: `user "${u.name}" carries this pipeline's id but is not in the source` });
  return { differences, verified, renamed };
}

/** Why the channel compared of a key held twice is that one: the run state's id, the source's name, else the first made. */
export type ComparedBecause = 'run' | 'name' | 'first';

/** A source channel the platform holds on several channels: the one compared and the other copies. */
export interface HeldTwice {
  compared: PlatformChannel;
  copies: PlatformChannel[];
  because: ComparedBecause;
}

/**
 * Which platform channel is the pipeline's channel of each key. A channel is the pipeline's when it
 * carries `chatportPipeline == id` and `chatportKey == key`. Channels written before chatport stored its
 * pipeline id carry the key alone; they are taken when no channel carries the id, and among several the
 * one with the expected name wins. DIRECT channels the platform already had are found by their members.
 * A key on several channels (another tool, an earlier broken run) is reported as held twice, never taken
 * silently; its members and messages are compared in one of them: the one the run state maps the key to
 * (`runIds`, channel-ids.json), else the one of the source's name, else the first made (lowest id).
 */
export function matchChannels(
  expected: ReadonlyMap<string, Sourced<ExpectedChannel>>,
  platform: readonly PlatformChannel[],
  pipelineId: string,
  /** Whether a channel of this pipeline not in the source counts as extra (run-verify.ts: judgedByExport). */
  judged: (channel: PlatformChannel) => boolean = () => true,
  /** Channel key → platform id, as chatport's latest runs resolved them. */
  runIds: ReadonlyMap<string, string> = new Map(),
): { byKey: Map<string, PlatformChannel>; extras: PlatformChannel[]; heldTwice: Map<string, HeldTwice> } {
  const owned = new Map<string, PlatformChannel[]>();
  const legacy = new Map<string, PlatformChannel[]>();
  const extras: PlatformChannel[] = [];
  for (const c of platform) {
    const key = c.properties?.[CHANNEL_KEY_PROPERTY];
    if (typeof key !== 'string') continue;
    const pipeline = c.properties?.[PIPELINE_PROPERTY];
    if (pipeline === pipelineId) append(owned, key, c);
    else if (pipeline === undefined) append(legacy, key, c);
  }
  const byKey = new Map<string, PlatformChannel>();
  const heldTwice = new Map<string, HeldTwice>();
  const used = new Set<string>();
  for (const [key, { item }] of expected) {
    const candidates = owned.get(key) ?? (legacy.get(key) ?? []).filter((c) => item.name === undefined || c.name === item.name);
    if (candidates.length > 1) {
      const twice = pickCompared(candidates, item.name, runIds.get(key));
      heldTwice.set(key, twice);
      byKey.set(key, twice.compared);
    } else if (candidates.length === 1) byKey.set(key, candidates[0]!);
    for (const c of candidates) used.add(c.id);
  }
  for (const [key, list] of owned) if (!expected.has(key)) extras.push(...list.filter(judged));
  // Pre-existing DIRECT channels (the platform keeps one per member set) carry no key of ours.
  const directByMembers = new Map<string, PlatformChannel>();
  for (const c of platform) if (c.type === 'DIRECT' && c.members && !used.has(c.id)) directByMembers.set(memberSet(c.members), c);
  for (const [key, { item }] of expected) {
    if (byKey.has(key) || item.type !== 'DIRECT') continue;
    const found = directByMembers.get(memberSet(item.members));
    if (found) byKey.set(key, found);
  }
  return { byKey, extras, heldTwice };
}

function pickCompared(candidates: readonly PlatformChannel[], name: string | undefined, runId: string | undefined): HeldTwice {
  const ordered = [...candidates].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  const pick = (compared: PlatformChannel, because: ComparedBecause): HeldTwice => ({ compared, copies: ordered.filter((c) => c !== compared), because });
  const mapped = ordered.find((c) => c.id === runId);
  if (mapped) return pick(mapped, 'run');
  const named = ordered.filter((c) => name !== undefined && c.name === name);
  return named.length === 1 ? pick(named[0]!, 'name') : pick(ordered[0]!, 'first');
}

/** A renamed channel says the name it has now (as a renamed user does): the one the user looks for. */
function channelChanged(key: string, item: ExpectedChannel, found: PlatformChannel, fields: readonly string[]): string {
  if (!fields.includes('name')) return `channel ${key} differs on the platform in ${fields.join(', ')}`;
  const rest = fields.filter((f) => f !== 'name');
  return `channel ${key} ("${item.name}") is named "${found.name}" on the platform${formNote(found.name, item.name)}${rest.length > 0 ? `, and differs there in ${rest.join(', ')}` : ''}`;
}

/** " (the same letters in another Unicode form: …)" when the two names print alike, else nothing. */
function formNote(platform: unknown, source: unknown): string {
  const note = unicodeFormNote(platform, source);
  return note === undefined ? '' : ` (${note})`;
}

export function compareChannels(expected: ReadonlyMap<string, Sourced<ExpectedChannel>>, matched: ReturnType<typeof matchChannels>): { differences: Difference[]; verified: number } {
  const differences: Difference[] = [];
  let verified = 0;
  for (const [key, { sourceKey, position, item }] of expected) {
    const found = matched.byKey.get(key);
    if (!found) {
      differences.push({ kind: 'missing', stage: 'channels', sourceKey, position, message: `channel ${key}${item.name ? ` ("${item.name}")` : ''} is not on the platform` });
      continue;
    }
    const fields: string[] = [];
    if (item.type !== found.type) fields.push('type');
    if (item.type !== 'DIRECT' && item.name !== undefined && item.name !== found.name) fields.push('name');
    if (item.type !== 'DIRECT' && item.name !== undefined && channelDisplayName(item) !== channelDisplayName(found)) fields.push('displayName');
    // A DIRECT channel the people already had (no chatport marks) keeps its own properties: the item was not sent.
    if (found.properties?.[CHANNEL_KEY_PROPERTY] !== undefined && !samePatchedValue(ownProperties(item.properties), ownProperties(found.properties))) fields.push('properties');
    if (fields.length === 0) verified++;
    else differences.push({ kind: 'changed', stage: 'channels', sourceKey, position, platformId: found.id, fields, message: channelChanged(key, item, found, fields) });
  }
  differences.push(...heldTwiceDifferences(expected, matched.heldTwice));
  for (const c of matched.extras)
    differences.push({ kind: 'extra', stage: 'channels', platformId: c.id, channelKey: String(c.properties?.[CHANNEL_KEY_PROPERTY]), message: `channel "${c.name}" (key ${String(c.properties?.[CHANNEL_KEY_PROPERTY])}) carries this pipeline's id but is not in the source` });
  return { differences, verified };
}

/** Expected members of one channel: username → where the source says so (the channel record or a members record). */
export type ExpectedMembers = Map<string, { sourceKey: string; position: SourcePosition; inChannelRecord?: true }>;

/** Memberships per channel: members missing on the platform, and members the source does not list. */
export function compareMembers(expected: ReadonlyMap<string, ExpectedMembers>, platform: ReadonlyMap<string, ReadonlySet<string>>): { differences: Difference[]; verified: number } {
  const differences: Difference[] = [];
  let verified = 0;
  for (const [channelKey, members] of expected) {
    const held = platform.get(channelKey) ?? new Set<string>();
    for (const [username, { sourceKey, position, inChannelRecord }] of members) {
      if (held.has(username)) verified++;
      else differences.push({ kind: 'missing', stage: 'members', sourceKey, position, channelKey, ...(inChannelRecord ? { inChannelRecord } : {}), message: `"${username}" is not a member of channel ${channelKey}` });
    }
  }
  for (const [channelKey, held] of platform) {
    const members = expected.get(channelKey);
    for (const username of held)
      if (!members?.has(username)) differences.push({ kind: 'extra', stage: 'members', sourceKey: `${channelKey}/${username}`, channelKey, message: `"${username}" is a member of channel ${channelKey}, which the source does not say` });
  }
  return { differences, verified };
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function memberSet(names: readonly string[]): string {
  return [...names].sort().join('\u0000');
}

const BECAUSE: Record<ComparedBecause, (key: string) => string> = {
  run: (key) => `chatport's run maps ${key} to it`,
  name: () => "its name is the source's",
  first: () => 'made first: neither the run state nor the name tells them apart',
};

/** One `extra` per second copy of a channel, naming every id and the one compared. */
export function heldTwiceDifferences(expected: ReadonlyMap<string, Sourced<ExpectedChannel>>, heldTwice: ReadonlyMap<string, HeldTwice>): Difference[] {
  const differences: Difference[] = [];
  for (const [key, { compared, copies, because }] of heldTwice) {
    const source = expected.get(key);
    const ids = [compared, ...copies].map((c) => c.id).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    for (const copy of copies)
      differences.push({
        kind: 'extra', stage: 'channels', ...(source ? { sourceKey: source.sourceKey, position: source.position } : {}), channelKey: key, platformId: copy.id,
        message: `channel ${key} is on the platform ${ids.length} times (ids ${ids.join(', ')}): channel ${compared.id} is compared (${BECAUSE[because](key)}), channel ${copy.id} is a second copy (its members and messages are not compared)`,
      });
  }
  return differences;
}
