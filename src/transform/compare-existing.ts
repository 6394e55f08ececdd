import { sameJsonValue } from '../shared/lossless-json.js';
import { isPlainObject } from '../shared/plain-object.js';
import { unicodeFormNote } from '../shared/unicode-forms.js';
import { IDENTITY_PROPERTIES } from './stages.js';

/** The stages whose records chatport compares with the platform's copy (those the API patches). */
export type ComparedStage = 'users' | 'channels' | 'messages';

/** The item fields compared per stage: those a merge patch can set. Members, type, authors and pictures are not. */
export const COMPARED_FIELDS: Readonly<Record<ComparedStage, readonly string[]>> = {
  users: ['name', 'displayName', 'isGuest', 'properties'],
  channels: ['name', 'displayName', 'properties'],
  messages: ['body', 'groupTag', 'properties'],
};

/** What a held copy keeps of a platform record: its compared and fixed fields, a message's author by name. */
export function comparedFieldsOf(stage: ComparedStage, record: Record<string, unknown>): Record<string, unknown> {
  const fields = Object.fromEntries([...COMPARED_FIELDS[stage], ...FIXED_FIELDS[stage]].filter((f) => record[f] !== undefined).map((f) => [f, record[f]]));
  if (stage === 'messages') fields.user = (record.user as { name?: unknown } | undefined)?.name ?? null;
  return fields;
}

/**
 * Fields the platform keeps and a merge patch cannot change: a channel's type, a message's type and author
 * (the snapshot keeps a message's author as its name). A difference there is no update: the record cannot
 * come to hold what the source says.
 */
export const FIXED_FIELDS: Readonly<Record<ComparedStage, readonly string[]>> = { users: [], channels: ['type'], messages: ['type', 'user'] };

/**
 * The fixed fields (FIXED_FIELDS) whose source value differs from the platform's copy; one the item or the
 * copy lacks (a snapshot an older version saved) is not compared. Pure.
 */
export function fixedFieldDifferences(stage: ComparedStage, item: Record<string, unknown>, held: Record<string, unknown>): FieldDifference[] {
  return FIXED_FIELDS[stage]
    .filter((field) => item[field] !== undefined && Object.hasOwn(held, field) && !sameJsonValue(item[field], held[field]))
    .map((field) => ({ field, platform: held[field], source: item[field] }));
}

/**
 * Fields compared even when the item leaves them out, as absent: a message has no default groupTag or
 * properties, so one the source dropped must go (a user's or channel's omitted field is the platform's default).
 */
const COMPARED_WHEN_ABSENT: Readonly<Record<ComparedStage, readonly string[]>> = { users: [], channels: [], messages: ['groupTag', 'properties'] };

/** One field whose source value differs from what the platform holds (`platform` undefined: absent there). */
export interface FieldDifference {
  field: string;
  platform: unknown;
  source: unknown;
  /** Why two texts that print the same differ (unicodeFormNote). */
  note?: string;
}

export interface Comparison {
  differences: FieldDifference[];
  /** The JSON merge patch that makes the platform's record hold the source's values (empty when equal). */
  patch: Record<string, unknown>;
}

/**
 * Compares an accepted item with the platform's copy of the same record. Only fields the item carries are
 * compared (a named channel without displayName as its default, its name: channelDisplayName), and a message's groupTag and properties. Properties are compared without
 * chatport's identity properties; values are compared as they travel (sameJsonValue: key order and -0 do
 * not matter), since the platform's copy is read back exactly. The patch removes properties the source no
 * longer has. Pure.
 */
export function compareWithPlatform(stage: ComparedStage, sourceItem: Record<string, unknown>, platformCopy: Record<string, unknown>): Comparison {
  const differences: FieldDifference[] = [];
  const patch: Record<string, unknown> = {};
  const item = stage === 'channels' ? withDefaultDisplayName(sourceItem) : sourceItem;
  const held = stage === 'channels' ? withDefaultDisplayName(platformCopy) : platformCopy;
  for (const field of COMPARED_FIELDS[stage]) {
    if (!Object.hasOwn(item, field) && !COMPARED_WHEN_ABSENT[stage].includes(field)) continue;
    if (field === 'properties') {
      const source = withoutIdentity(item.properties);
      const platform = withoutIdentity(held.properties ?? {});
      const propertiesPatch = mergePatchBetween(platform, source);
      if (Object.keys(propertiesPatch).length > 0 && Object.keys(mergePatchBetween(withoutPlacementFacts(platform), withoutPlacementFacts(source))).length > 0) {
        differences.push({ field, platform, source });
        patch.properties = propertiesPatch;
      }
      continue;
    }
    if (!sameJsonValue(item[field], held[field])) {
      const note = unicodeFormNote(held[field], item[field]);
      differences.push({ field, platform: held[field], source: item[field], ...(note === undefined ? {} : { note }) });
      patch[field] = item[field] ?? null;
    }
  }
  return { differences, patch };
}

/**
 * A named (PUBLIC or PRIVATE) channel's display name: its own, else its name, the platform's default
 * (management-api.md, create-channel body). A channel renamed without a display name of its own must not
 * keep showing its old name.
 */
export function channelDisplayName(channel: { type?: unknown; name?: unknown; displayName?: unknown }): unknown {
  return channel.type === 'DIRECT' ? channel.displayName : (channel.displayName ?? channel.name);
}

function withDefaultDisplayName(item: Record<string, unknown>): Record<string, unknown> {
  const displayName = channelDisplayName(item);
  return displayName === item.displayName ? item : { ...item, displayName };
}

/**
 * The merge patch (RFC 7396) that turns `current` into `target`: changed keys, `null` for removed ones. A
 * member holding null is taken as absent on either side (withoutNullMembers): a patch can only remove it, so
 * a source's null that the platform lacks is no difference, else every run would patch it again.
 */
export function mergePatchBetween(current: Record<string, unknown>, target: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(target)) {
    const was = current[key];
    if (isNullMember(value)) {
      if (!isNullMember(was)) patch[key] = null;
    } else if (isPlainObject(value) && isPlainObject(was)) {
      const inner = mergePatchBetween(was, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (!sameJsonValue(value, was)) patch[key] = value;
  }
  for (const key of Object.keys(current)) if (!Object.hasOwn(target, key) && !isNullMember(current[key])) patch[key] = null;
  return patch;
}

const isNullMember = (value: unknown): boolean => value === null || value === undefined;

/**
 * Properties without the thread facts that say where a message stands in its export rather than what it is:
 * a root's count of replies (`source.thread.replyCount`), which grows whenever a later export adds replies, and
 * Slack's `rootMissing`, which a later export (a later day file that may hold the root) can drop, the reply
 * then being sent as an orphan and found where it stands. The message is the same, so these alone are no
 * change to list, patch or verify (else they would be "changed" on every nightly run of a re-made export);
 * with another change they are patched along.
 */
export function withoutPlacementFacts(properties: Record<string, unknown>): Record<string, unknown> {
  const source = properties.source;
  if (!isPlainObject(source) || !isPlainObject(source.thread) || !PLACEMENT_FACTS.some((fact) => Object.hasOwn(source.thread as object, fact))) return properties;
  const { replyCount: _count, rootMissing: _missing, ...thread } = source.thread;
  return { ...properties, source: { ...source, thread } };
}

const PLACEMENT_FACTS = ['replyCount', 'rootMissing'];

function withoutIdentity(properties: unknown): Record<string, unknown> {
  if (!isPlainObject(properties)) return {};
  const out = { ...properties };
  for (const name of IDENTITY_PROPERTIES) delete out[name];
  return out;
}
