import { LIMITS, type UserImportItem } from '../../wire/imports.js';
import type { SlackMappingContext } from './context.js';
import type { DirectoryUser } from './directory.js';
import { slackSourceKey } from './keys.js';
import { SOURCE_PROPERTY, compact, pickExtra, type UserSourceFacts } from './source-properties.js';

/** Fields of a users.json record the mapping consumes; the rest go to `extra`. */
const CONSUMED = ['id', 'team_id', 'name', 'real_name', 'deleted', 'is_bot', 'is_app_user', 'is_admin', 'is_owner', 'is_primary_owner', 'is_restricted', 'is_ultra_restricted', 'tz', 'tz_label', 'tz_offset'];
/** profile fields consumed; image_24 … image_192 only repeat image_512/image_original at smaller sizes. */
const PROFILE_CONSUMED = ['real_name', 'display_name', 'email', 'title', 'bot_id', 'real_name_normalized', 'display_name_normalized'];
const PROFILE_DROPPED = ['image_24', 'image_32', 'image_48', 'image_72', 'image_192'];

/** One user import item per directory user: users.json members, bots, then placeholders. */
export function* mapSlackUsers(context: SlackMappingContext): Generator<UserImportItem> {
  for (const user of context.directory.users.values()) yield mapSlackUser(user, context);
}

export function mapSlackUser(user: DirectoryUser, context: SlackMappingContext): UserImportItem {
  const team = context.directory.teamId;
  const record = user.record;
  const profile = record?.profile;
  const displayName = firstNonBlank(profile?.display_name, profile?.real_name, record?.real_name, user.placeholder?.displayName, user.placeholder?.realName, record?.name, user.placeholder?.name, user.username)!;
  const facts: UserSourceFacts = compact({
    system: 'slack',
    kind: 'user' as const,
    id: user.id,
    workspace: record?.team_id ?? team,
    handle: record?.name ?? user.placeholder?.name,
    userKind: user.kind,
    deleted: record?.deleted === true,
    guest: record?.is_ultra_restricted === true ? 'ultra_restricted' : record?.is_restricted === true ? 'restricted' : undefined,
    roles: rolesOf(user),
    realName: nonBlank(profile?.real_name ?? record?.real_name ?? user.placeholder?.realName),
    displayName: nonBlank(profile?.display_name ?? user.placeholder?.displayName),
    email: nonBlank(profile?.email),
    title: nonBlank(profile?.title),
    timeZone: record?.tz == null && record?.tz_label === undefined ? undefined : compact({ name: record.tz ?? undefined, label: record.tz_label, offsetSeconds: record.tz_offset }),
    botId: nonBlank(profile?.bot_id ?? user.placeholder?.botId),
    placeholder: user.placeholder === undefined ? undefined : { reason: user.placeholder.reason, firstSeenIn: user.placeholder.firstSeenIn },
    extra: record === undefined ? undefined : extraOf(record),
  });
  return {
    name: user.username,
    displayName: truncate(displayName, LIMITS.displayNameLength),
    isGuest: record?.is_restricted === true || record?.is_ultra_restricted === true,
    properties: { [SOURCE_PROPERTY]: facts },
    idempotencyKey: context.keyFor('users', slackSourceKey.user(team, user.id)),
  };
}

function extraOf(record: NonNullable<DirectoryUser['record']>): Record<string, unknown> | undefined {
  const extra = pickExtra(record, [...CONSUMED, 'profile']) ?? {};
  if (record.profile !== undefined) {
    const profileExtra = pickExtra(record.profile, PROFILE_CONSUMED, PROFILE_DROPPED);
    if (profileExtra !== undefined) extra.profile = profileExtra;
  }
  return Object.keys(extra).length === 0 ? undefined : extra;
}

function rolesOf(user: DirectoryUser): string[] | undefined {
  const r = user.record;
  if (r === undefined) return undefined;
  const roles = [r.is_primary_owner && 'primary_owner', r.is_owner && 'owner', r.is_admin && 'admin'].filter((x): x is string => typeof x === 'string');
  return roles.length === 0 ? undefined : roles;
}

function nonBlank(value: string | undefined | null): string | undefined {
  return value === undefined || value === null || value.trim() === '' ? undefined : value;
}

function firstNonBlank(...values: (string | undefined | null)[]): string | undefined {
  for (const value of values) if (nonBlank(value) !== undefined) return value!.trim();
  return undefined;
}

/** Cuts to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
