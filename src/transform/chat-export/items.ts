import { LIMITS, type ChannelImportItem, type MemberImportItem, type MessageImportItem, type UserImportItem } from '../../wire/imports.js';
import { splitBody } from '../split-body.js';
import { SOURCE_PROPERTY, compact, type ChannelSourceFacts, type MessageSourceFacts, type UserSourceFacts } from '../slack/source-properties.js';
import { truncate } from '../slack/users.js';
import type { ChatDirectory, ChatDirectoryChannel, ChatDirectoryUser } from './directory.js';
import type { SourceMessage } from './model.js';

/** How items get their idempotency keys: from the stage and the source key (the pipeline's scheme). */
export type ChatKeyFor = (stage: 'users' | 'channels' | 'members' | 'messages', sourceKey: string) => string;

export interface ChatMappingContext {
  directory: ChatDirectory;
  keyFor: ChatKeyFor;
  systemMessages: 'import' | 'skip';
}

/** Source keys: ids are unique per kind within a workspace; keys carry the workspace so two never collide. */
export const chatSourceKey = {
  user: (workspace: string, id: string) => `${workspace}/${id}`,
  channel: (workspace: string, id: string) => `${workspace}/${id}`,
  member: (workspace: string, channel: string, user: string) => `${workspace}/${channel}/${user}`,
  message: (workspace: string, channel: string, id: string, part = 1) => `${workspace}/${channel}/${id}${part > 1 ? `/part${part}` : ''}`,
};

export function mapChatUser(user: ChatDirectoryUser, context: ChatMappingContext): { item: UserImportItem; sourceKey: string } {
  const { directory } = context;
  const { source } = user;
  const facts: UserSourceFacts = compact({
    system: directory.platform,
    kind: 'user' as const,
    id: user.id,
    workspace: directory.workspace,
    handle: source.handle,
    userKind: user.placeholder ? ('placeholder' as const) : source.kind,
    deleted: false,
    ...source.facts,
    placeholder: user.placeholder,
  });
  const sourceKey = chatSourceKey.user(directory.workspace, user.id);
  const displayName = (source.displayName ?? source.handle ?? user.username).trim() || user.username;
  return {
    item: { name: user.username, displayName: truncate(displayName, LIMITS.displayNameLength), isGuest: source.isGuest === true, properties: { [SOURCE_PROPERTY]: facts }, idempotencyKey: context.keyFor('users', sourceKey) },
    sourceKey,
  };
}

/**
 * PUBLIC and PRIVATE channels are created without members (the members stage adds them); DIRECT ones
 * carry their 2 to 10 members, as the platform requires.
 */
export function mapChatChannel(channel: ChatDirectoryChannel, context: ChatMappingContext): { item: ChannelImportItem; sourceKey: string } {
  const { directory } = context;
  const { source } = channel;
  const facts: ChannelSourceFacts = compact({
    system: directory.platform,
    kind: 'channel' as const,
    id: channel.id,
    workspace: directory.workspace,
    conversationType: source.conversationType,
    name: source.name,
    archived: false,
    ...source.facts,
    memberIds: source.memberIds.length === 0 ? undefined : source.memberIds,
    typeChange: channel.typeChange,
  });
  const sourceKey = chatSourceKey.channel(directory.workspace, channel.id);
  const item: ChannelImportItem = {
    type: channel.type,
    members: channel.type === 'DIRECT' ? source.memberIds.map((id) => directory.users.get(id)!.username) : [],
    properties: { [SOURCE_PROPERTY]: facts },
    idempotencyKey: context.keyFor('channels', sourceKey),
  };
  if (channel.name !== undefined) {
    item.name = channel.name;
    item.displayName = truncate(source.displayName ?? source.name ?? channel.name, LIMITS.displayNameLength);
  }
  const creator = source.facts?.creator === undefined ? undefined : directory.users.get(source.facts.creator)?.username;
  if (creator !== undefined && channel.type !== 'DIRECT') item.creator = creator;
  return { item, sourceKey };
}

/** Memberships of one PUBLIC or PRIVATE channel (DIRECT channels carry theirs). */
export function* mapChatMembers(channel: ChatDirectoryChannel, context: ChatMappingContext): Generator<{ item: MemberImportItem; sourceKey: string }> {
  if (channel.type === 'DIRECT') return;
  const { directory } = context;
  for (const userId of channel.source.memberIds) {
    const sourceKey = chatSourceKey.member(directory.workspace, channel.id, userId);
    yield { item: { username: directory.users.get(userId)!.username, idempotencyKey: context.keyFor('members', sourceKey) }, sourceKey };
  }
}

export type MappedMessage = { kind: 'skipped'; because: string } | { kind: 'items'; items: Array<{ item: MessageImportItem; sourceKey: string }> };

/**
 * One message: skipped when it is a system message (not a thread's root) and the pipeline skips those; else one item, or
 * consecutive parts when the body is over the platform's limit (each part a record, its number in
 * `properties.source.part`). `channelId` is set by the reader once the channel's platform id is known.
 */
export function mapChatMessage(message: SourceMessage, context: ChatMappingContext): MappedMessage {
  // A system message that roots a reply thread stays: skipped, its replies would lose their thread.
  if (message.system !== undefined && context.systemMessages === 'skip' && message.facts.thread?.isRoot !== true) return { kind: 'skipped', because: `system message: ${message.system}` };
  const { directory } = context;
  const author = message.authorId === undefined ? undefined : directory.users.get(message.authorId);
  const type = message.system !== undefined || author === undefined ? 'SYSTEM_TEXT' : 'TEXT';
  const parts = splitBody(message.body === '' ? '(empty message)' : message.body, LIMITS.bodyLength);
  const items = parts.map((body, i) => {
    const part = parts.length > 1 ? { index: i + 1, count: parts.length } : undefined;
    const facts: MessageSourceFacts = compact({
      system: directory.platform,
      kind: 'message' as const,
      id: message.id,
      workspace: directory.workspace,
      channel: message.channelId,
      ...message.facts,
      subtype: message.system ?? message.facts.subtype,
      part,
    });
    const sourceKey = chatSourceKey.message(directory.workspace, message.channelId, message.id, part?.index);
    const item: MessageImportItem = { type, channelId: 0, body, properties: { [SOURCE_PROPERTY]: facts }, idempotencyKey: context.keyFor('messages', sourceKey) };
    if (type === 'TEXT') item.user = author!.username;
    return { item, sourceKey };
  });
  return { kind: 'items', items };
}
