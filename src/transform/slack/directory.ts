import { CLEAN_TEXT, recordTextProblem, type TextMarks } from '../../shared/json-checks/export-text.js';
import { LIMITS } from '../../wire/imports.js';
import { findAuthor } from './authors.js';
import type { KnownAuthors } from './author-scan.js';
import { createNameAllocator, makeValidName } from '../names.js';
import { parseSlackConversation, parseSlackUser, type Parsed, type SlackConversation, type RecordProblem, type SlackMessage, type SlackUser } from './records.js';

/** Where a record sits in the export: file and zero-based index in its JSON array. */
export interface RecordPosition {
  file: string;
  index: number;
}

export type ConversationKind = 'channel' | 'group' | 'dm' | 'mpim';

export interface DirectoryUser {
  /** Slack user id; for bots without a user, the bot id (or `integration:<name>`). */
  id: string;
  username: string;
  kind: 'person' | 'bot' | 'app' | 'placeholder';
  record?: SlackUser;
  placeholder?: { reason: string; firstSeenIn: string; name?: string; realName?: string; displayName?: string; botId?: string };
}

export interface DirectoryChannel {
  id: string;
  conversationKind: ConversationKind;
  type: 'PUBLIC' | 'PRIVATE' | 'DIRECT';
  /** The platform name (PUBLIC and PRIVATE only): made valid and unique. */
  name?: string;
  record: SlackConversation;
  /** Slack user ids, unique, in the order the export lists them. */
  memberIds: string[];
  typeChange?: { from: string; to: string; reason: string };
  position: RecordPosition;
}

export interface DirectoryRejection {
  stage: 'users' | 'channels';
  position: RecordPosition;
  problem: RecordProblem;
  raw: unknown;
}

/**
 * Everything about a workspace except its messages: users (with placeholders for ids that messages or
 * channels reference but users.json lacks), channels with their platform types and names, and the team.
 * Built by one pass over the export (users, conversation lists, then every day file one at a time);
 * its size grows with users and channels, never with messages.
 */
export interface SlackDirectory {
  teamId: string;
  /** users.json order, then placeholders by id. */
  users: ReadonlyMap<string, DirectoryUser>;
  /** bot_id → the user that owns the bot in users.json. */
  botUsers: ReadonlyMap<string, string>;
  /** channels.json, groups.json, mpims.json, dms.json order. */
  channels: ReadonlyMap<string, DirectoryChannel>;
  rejected: readonly DirectoryRejection[];
}

/** parseRecord, after the record's text is found sendable (no unreadable byte, no lone surrogate). */
function parseText<T>(parse: (raw: unknown) => Parsed<T>, raw: unknown, marks: TextMarks): Parsed<T> {
  const unsendable = recordTextProblem(raw, marks);
  return unsendable ? { ok: false, problem: { field: unsendable.field ?? '', reason: unsendable.reason } } : parse(raw);
}

export interface SlackDirectoryOptions {
  /** The team id used in source keys; default: the most common `team_id` in users.json. */
  teamId?: string;
}

export interface SlackDirectoryBuilder {
  /** `marks`: what the file's text showed before the record (a record holding a lone surrogate is rejected). */
  addUser(position: RecordPosition, raw: unknown, marks?: TextMarks): void;
  addConversation(kind: ConversationKind, position: RecordPosition, raw: unknown, marks?: TextMarks): void;
  /** Call for every message of every day file; collects authors users.json lacks. */
  noteMessage(position: RecordPosition, raw: unknown): void;
  /** Authors `noteMessage` has nothing to learn from (listed in users.json, or already named by a message). */
  readonly known: KnownAuthors;
  build(): SlackDirectory;
}

interface Reference {
  reason: string;
  firstSeenIn: string;
  name?: string;
  realName?: string;
  displayName?: string;
  botId?: string;
  bot: boolean;
}

/** A reference's names (the profile fields a message gives). */
function namesOf(ref: Reference): Pick<Reference, 'name' | 'realName' | 'displayName'> {
  return {
    ...(ref.name === undefined ? {} : { name: ref.name }),
    ...(ref.realName === undefined ? {} : { realName: ref.realName }),
    ...(ref.displayName === undefined ? {} : { displayName: ref.displayName }),
  };
}

const CONVERSATION_ORDER: ConversationKind[] = ['channel', 'group', 'mpim', 'dm'];

export function createSlackDirectoryBuilder(options: SlackDirectoryOptions = {}): SlackDirectoryBuilder {
  const users: { record: SlackUser }[] = [];
  const userIds = new Set<string>();
  const botUsers = new Map<string, string>();
  const conversations: { kind: ConversationKind; record: SlackConversation; position: RecordPosition }[] = [];
  const conversationIds = new Set<string>();
  const references = new Map<string, Reference>();
  const rejected: DirectoryRejection[] = [];

  const reference = (id: string, ref: Reference) => {
    if (userIds.has(id)) return;
    const earlier = references.get(id);
    if (earlier === undefined) return void references.set(id, ref);
    // The first message that names the author names them (a join message before it carries no profile).
    if (earlier.name === undefined && ref.name !== undefined) references.set(id, { ...earlier, ...namesOf(ref) });
  };
  /** An author is known once users.json lists them or a message has named them: nothing more to learn. */
  const named = (id: string) => userIds.has(id) || references.get(id)?.name !== undefined;

  return {
    addUser(position, raw, marks = CLEAN_TEXT) {
      const parsed = parseText(parseSlackUser, raw, marks);
      if (!parsed.ok) return void rejected.push({ stage: 'users', position, problem: parsed.problem, raw });
      // Kept for the whole run: a copy, whose strings do not pin users.json's stream chunks (shared/detach-string.ts).
      const user = structuredClone(parsed.value);
      if (userIds.has(user.id))
        return void rejected.push({ stage: 'users', position, problem: { field: 'id', reason: `user id ${user.id} appears twice; the first is kept` }, raw });
      userIds.add(user.id);
      references.delete(user.id);
      users.push({ record: user });
      const botId = user.profile?.bot_id;
      if (botId !== undefined && botId !== '' && !botUsers.has(botId)) botUsers.set(botId, user.id);
    },

    addConversation(kind, position, raw, marks = CLEAN_TEXT) {
      const parsed = parseText(parseSlackConversation, raw, marks);
      if (!parsed.ok) return void rejected.push({ stage: 'channels', position, problem: parsed.problem, raw });
      if (conversationIds.has(parsed.value.id))
        return void rejected.push({ stage: 'channels', position, problem: { field: 'id', reason: `conversation id ${parsed.value.id} appears twice; the first is kept` }, raw });
      const record = structuredClone(parsed.value);
      conversationIds.add(record.id);
      conversations.push({ kind, record, position });
    },

    known: {
      user: named,
      bot: (id) => botUsers.has(id) || named(id),
    },

    noteMessage(position, raw) {
      // Only the author fields are read here (a full parse of every message twice would double the
      // cost of pass 1); a malformed message is rejected later by the message mapping, with its reason.
      const message = authorFieldsOf(raw);
      if (message === undefined) return;
      const author = findAuthor(message);
      const where = `${position.file}#${position.index}`;
      if (author.kind === 'user') {
        const profile = message.user_profile;
        reference(author.id, {
          reason: 'sends messages but is not in users.json',
          firstSeenIn: where,
          bot: false,
          ...(profile?.name === undefined ? {} : { name: profile.name }),
          ...(profile?.real_name === undefined ? {} : { realName: profile.real_name }),
          ...(profile?.display_name === undefined ? {} : { displayName: profile.display_name }),
        });
      } else if (author.kind === 'bot' && !(author.botId !== undefined && botUsers.has(author.botId))) {
        reference(author.id, {
          reason: 'a bot that sends messages but has no user in users.json',
          firstSeenIn: where,
          bot: true,
          ...(author.name === undefined ? {} : { name: author.name }),
          ...(author.botId === undefined ? {} : { botId: author.botId }),
        });
      }
    },

    build() {
      // Channel members and creators are references too (noted last: message profiles name people better).
      for (const { record, position } of conversations)
        for (const id of [...(record.members ?? []), ...(record.creator === undefined ? [] : [record.creator])])
          if (id !== '') reference(id, { reason: 'listed in a conversation but not in users.json', firstSeenIn: `${position.file}#${position.index}`, bot: false });
      for (const id of userIds) references.delete(id);
      for (const [botId] of botUsers) references.delete(botId);
      return assemble(users, botUsers, conversations, references, rejected, options);
    },
  };
}

function assemble(
  users: { record: SlackUser }[],
  botUsers: Map<string, string>,
  conversations: { kind: ConversationKind; record: SlackConversation; position: RecordPosition }[],
  references: Map<string, Reference>,
  rejected: DirectoryRejection[],
  options: SlackDirectoryOptions,
): SlackDirectory {
  const names = createNameAllocator();
  const directoryUsers = new Map<string, DirectoryUser>();
  for (const { record } of users) {
    const kind = record.is_bot === true ? 'bot' : record.is_app_user === true ? 'app' : 'person';
    const username = names.allocate(makeValidName(record.name, `user-${record.id.toLowerCase()}`));
    directoryUsers.set(record.id, { id: record.id, username, kind, record });
  }
  const placeholderIds = [...references.keys()].sort();
  for (const id of placeholderIds) {
    const ref = references.get(id)!;
    const fallback = ref.bot ? `bot-${id.replace(/^integration:/, '').toLowerCase()}` : `unknown-${id.toLowerCase()}`;
    // Slackbot is in no users.json, yet posts tombstones and reminders everywhere.
    const username = names.allocate(makeValidName(ref.name ?? (id === 'USLACKBOT' ? 'slackbot' : undefined), fallback));
    const { bot: _bot, ...placeholder } = ref;
    directoryUsers.set(id, { id, username, kind: 'placeholder', placeholder });
  }
  return {
    teamId: options.teamId ?? mostCommonTeam(users) ?? 'T-unknown',
    users: directoryUsers,
    botUsers,
    channels: assembleChannels(conversations, directoryUsers),
    rejected,
  };
}

function authorFieldsOf(raw: unknown): SlackMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined);
  const profile = obj(r.user_profile);
  const botProfile = obj(r.bot_profile);
  return compactMessage({
    ts: '0',
    user: str(r.user),
    bot_id: str(r.bot_id),
    username: str(r.username),
    subtype: str(r.subtype),
    bot_profile: botProfile === undefined ? undefined : compactMessage({ name: str(botProfile.name) }),
    user_profile: profile === undefined ? undefined : compactMessage({ name: str(profile.name), real_name: str(profile.real_name), display_name: str(profile.display_name) }),
  }) as SlackMessage;
}

function compactMessage<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}

function mostCommonTeam(users: { record: SlackUser }[]): string | undefined {
  const counts = new Map<string, number>();
  for (const { record } of users) if (record.team_id) counts.set(record.team_id, (counts.get(record.team_id) ?? 0) + 1);
  let best: [string, number] | undefined;
  for (const entry of counts) if (best === undefined || entry[1] > best[1] || (entry[1] === best[1] && entry[0] < best[0])) best = entry;
  return best?.[0];
}

function assembleChannels(
  conversations: { kind: ConversationKind; record: SlackConversation; position: RecordPosition }[],
  users: ReadonlyMap<string, DirectoryUser>,
): Map<string, DirectoryChannel> {
  const names = createNameAllocator();
  const directSets = new Set<string>();
  const channels = new Map<string, DirectoryChannel>();
  const ordered = CONVERSATION_ORDER.flatMap((kind) => conversations.filter((c) => c.kind === kind));
  for (const { kind, record, position } of ordered) {
    const memberIds = [...new Set((record.members ?? []).filter((id) => id !== ''))];
    let type: DirectoryChannel['type'] = kind === 'channel' ? 'PUBLIC' : kind === 'group' ? 'PRIVATE' : 'DIRECT';
    let typeChange: DirectoryChannel['typeChange'];
    if (type === 'DIRECT') {
      const setKey = memberIds.map((id) => users.get(id)?.username ?? id).sort().join('\n');
      if (memberIds.length < LIMITS.directMembersMin || memberIds.length > LIMITS.directMembersMax) {
        type = 'PRIVATE';
        typeChange = { from: 'DIRECT', to: 'PRIVATE', reason: `${memberIds.length} members; a DIRECT channel has ${LIMITS.directMembersMin} to ${LIMITS.directMembersMax}` };
      } else if (directSets.has(setKey)) {
        // The platform keeps one DIRECT channel per member set; a second conversation of the same
        // people stays separate as PRIVATE instead of being merged into the first.
        type = 'PRIVATE';
        typeChange = { from: 'DIRECT', to: 'PRIVATE', reason: 'another direct conversation has the same members' };
      } else directSets.add(setKey);
    }
    const channel: DirectoryChannel = { id: record.id, conversationKind: kind, type, record, memberIds, position };
    if (typeChange !== undefined) channel.typeChange = typeChange;
    if (type !== 'DIRECT') channel.name = names.allocate(makeValidName(record.name ?? defaultConversationName(kind, memberIds, users), `channel-${record.id.toLowerCase()}`));
    channels.set(record.id, channel);
  }
  return channels;
}

function defaultConversationName(kind: ConversationKind, memberIds: string[], users: ReadonlyMap<string, DirectoryUser>): string | undefined {
  if (kind !== 'dm') return undefined;
  return `dm-${memberIds.map((id) => users.get(id)?.username ?? id).join('-')}`;
}
