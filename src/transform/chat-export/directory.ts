import { LIMITS } from '../../wire/imports.js';
import { createNameAllocator, makeValidName } from '../names.js';
import type { ExportPosition, SourceChannel, SourceUser, UserHint } from './model.js';

export interface ChatDirectoryUser {
  id: string;
  username: string;
  source: SourceUser;
  /** Set when the export lacks the user and a record named them: why, and the first `file#index` that did. */
  placeholder?: { reason: string; firstSeenIn: string };
}

export interface ChatDirectoryChannel {
  id: string;
  type: 'PUBLIC' | 'PRIVATE' | 'DIRECT';
  /** PUBLIC and PRIVATE: the platform name, valid and unique. */
  name?: string;
  source: SourceChannel;
  typeChange?: { from: string; to: string; reason: string };
}

/**
 * Everything about a workspace but its messages: users (the export's, then placeholders for the ids
 * records name that it lacks), channels with platform types and names. Built by the first pass; it grows
 * with users and channels, never with messages.
 */
export interface ChatDirectory {
  platform: string;
  workspace: string;
  users: ReadonlyMap<string, ChatDirectoryUser>;
  channels: ReadonlyMap<string, ChatDirectoryChannel>;
  /** User and channel records the first pass could not take: each a rejected record of its stage. */
  rejected: readonly DirectoryRejection[];
  /**
   * Threads whose replies go into another message's thread (a Discord thread opened on an inline reply
   * joins that reply's chain): thread id → that root. The messages pass needs it before it meets the reply.
   */
  threadRoots: ReadonlyMap<string, string>;
  /**
   * System messages a reply answers (a Discord "Wave to say hi!" on a join note): kept under
   * `systemMessages: skip`, their replies need them. The messages pass meets them before their replies.
   */
  answeredSystemMessages: ReadonlySet<string>;
  /**
   * Threads whose starter message was deleted (a Discord thread file whose id no record of its channel has,
   * where the channel's files cover the starter's time): each gets a root in the starter's place.
   */
  deletedThreadStarters: ReadonlySet<string>;
}

export interface DirectoryRejection {
  stage: 'users' | 'channels';
  position: ExportPosition;
  field: string;
  expected: string;
  reason: string;
  raw: unknown;
}

export interface ChatDirectoryBuilder {
  /** A user the export has; the first record of an id wins (false for a later one). */
  addUser(user: SourceUser): boolean;
  /** A later record of a user added before, which takes that one's place (Discord: the latest name wins). */
  replaceUser(user: SourceUser): void;
  /** A user a record names: a placeholder unless the export has (or later adds) them. */
  noteUser(id: string, hint: UserHint, at: ExportPosition): void;
  /** The first record of a channel id wins (false for a later one); its members are noted. */
  addChannel(channel: SourceChannel): boolean;
  hasChannel(id: string): boolean;
  hasUser(id: string): boolean;
  reject(rejection: DirectoryRejection): void;
  setWorkspace(workspace: string): void;
  /** A thread whose replies go into the thread of `root`, another message. */
  setThreadRoot(threadId: string, root: string): void;
  /** A system message a reply answers (ChatDirectory.answeredSystemMessages). */
  markAnswered(messageId: string): void;
  /** A thread whose starter message was deleted (ChatDirectory.deletedThreadStarters). */
  markStarterDeleted(threadId: string): void;
  build(): ChatDirectory;
}

export function createChatDirectoryBuilder(platform: string): ChatDirectoryBuilder {
  let workspace = '';
  const users = new Map<string, SourceUser>();
  const placeholders = new Map<string, { hint: UserHint; at: ExportPosition }>();
  const channels = new Map<string, SourceChannel>();
  const rejected: DirectoryRejection[] = [];
  const threadRoots = new Map<string, string>();
  const answeredSystemMessages = new Set<string>();
  const deletedThreadStarters = new Set<string>();
  const noteUser = (id: string, hint: UserHint, at: ExportPosition) => {
    if (!users.has(id) && !placeholders.has(id)) placeholders.set(id, structuredClone({ hint, at }));
  };
  return {
    setWorkspace: (w) => void (workspace = w),
    addUser(user) {
      if (users.has(user.id)) return false;
      // Kept for the whole run: a copy, so that no string of it pins the parser's input (detach-string.ts).
      users.set(user.id, structuredClone(user));
      return true;
    },
    replaceUser(user) {
      // Same Map entry: the user keeps its place in the order names are allotted in.
      if (users.has(user.id)) users.set(user.id, structuredClone(user));
    },
    noteUser,
    hasChannel: (id) => channels.has(id),
    hasUser: (id) => users.has(id),
    reject: (r) => void rejected.push(r),
    setThreadRoot: (threadId, root) => void threadRoots.set(threadId, root),
    markAnswered: (messageId) => void answeredSystemMessages.add(messageId),
    markStarterDeleted: (threadId) => void deletedThreadStarters.add(threadId),
    addChannel(channel) {
      if (channels.has(channel.id)) return false;
      channel = structuredClone({ ...channel, memberIds: [...new Set(channel.memberIds)] });
      channels.set(channel.id, channel);
      for (const id of channel.memberIds) noteUser(id, { reason: `member of channel ${channel.name ?? channel.id}` }, channel.position);
      return true;
    },
    build: () => ({ platform, workspace, users: allocateUsers(users, placeholders), channels: allocateChannels(channels), rejected, threadRoots, answeredSystemMessages, deletedThreadStarters }),
  };
}

/** Users the export has in their order, then placeholders in the order they were first named. */
function allocateUsers(users: ReadonlyMap<string, SourceUser>, placeholders: ReadonlyMap<string, { hint: UserHint; at: ExportPosition }>): Map<string, ChatDirectoryUser> {
  const names = createNameAllocator();
  const out = new Map<string, ChatDirectoryUser>();
  for (const user of users.values()) out.set(user.id, { id: user.id, username: names.allocate(makeValidName(user.handle ?? user.displayName, `user-${user.id}`)), source: user });
  for (const [id, { hint, at }] of placeholders) {
    if (users.has(id)) continue;
    const source: SourceUser = { id, kind: hint.kind ?? 'person', position: at, ...(hint.handle ? { handle: hint.handle } : {}), ...(hint.displayName ? { displayName: hint.displayName } : {}) };
    out.set(id, { id, username: names.allocate(makeValidName(hint.handle ?? hint.displayName, `user-${id}`)), source, placeholder: { reason: hint.reason, firstSeenIn: `${at.file}#${at.index}` } });
  }
  return out;
}

/**
 * Platform types: a direct conversation of 2 to 10 people (decisions.md) is DIRECT, unless another one
 * already has the same people (the platform keeps one DIRECT channel per set of members); otherwise it
 * becomes PRIVATE, and says why. PUBLIC and PRIVATE channels get valid, unique names.
 */
function allocateChannels(channels: ReadonlyMap<string, SourceChannel>): Map<string, ChatDirectoryChannel> {
  const names = createNameAllocator();
  const directSets = new Set<string>();
  const out = new Map<string, ChatDirectoryChannel>();
  for (const channel of channels.values()) {
    let type = channel.natural;
    let typeChange: ChatDirectoryChannel['typeChange'];
    if (type === 'DIRECT') {
      const n = channel.memberIds.length;
      const set = [...channel.memberIds].sort().join('\u0000');
      const reason =
        n > LIMITS.directMembersMax ? `${n} members; a DIRECT channel holds at most ${LIMITS.directMembersMax}`
        : n < LIMITS.directMembersMin ? `${n} member${n === 1 ? '' : 's'}; a DIRECT channel needs at least ${LIMITS.directMembersMin}`
        : directSets.has(set) ? 'another direct conversation has the same members, and the platform keeps one DIRECT channel per set of members'
        : undefined;
      if (reason === undefined) directSets.add(set);
      else {
        type = 'PRIVATE';
        typeChange = { from: 'DIRECT', to: 'PRIVATE', reason };
      }
    }
    const entry: ChatDirectoryChannel = { id: channel.id, type, source: channel, ...(typeChange ? { typeChange } : {}) };
    if (type !== 'DIRECT') entry.name = names.allocate(makeValidName(channel.name ?? channel.displayName, type === 'PRIVATE' && channel.natural === 'DIRECT' ? `group-${channel.id}` : `channel-${channel.id}`));
    out.set(channel.id, entry);
  }
  return out;
}
