import { LIMITS, type ChannelImportItem, type MemberImportItem } from '../../wire/imports.js';
import type { SlackMappingContext } from './context.js';
import type { DirectoryChannel } from './directory.js';
import { slackSourceKey } from './keys.js';
import { epochToIso } from './records.js';
import { SOURCE_PROPERTY, compact, pickExtra, type ChannelSourceFacts, type TextWithAuthor } from './source-properties.js';
import { truncate } from './users.js';

const CONSUMED = ['id', 'name', 'created', 'creator', 'is_archived', 'is_general', 'members', 'topic', 'purpose'];

/**
 * A channel item with its Slack id (`channelKey`). The pipeline finds the platform id after the
 * channels import: PUBLIC and PRIVATE channels by their `name`, DIRECT ones by their member set
 * (decisions.md: import jobs return no ids).
 */
export interface PlannedChannel {
  channelKey: string;
  item: ChannelImportItem;
}

/** A membership for the members import, whose path needs the channel's platform id. */
export interface PendingMember {
  channelKey: string;
  item: MemberImportItem;
}

/**
 * One item per conversation. PUBLIC and PRIVATE channels are created with no members: theirs go through
 * the members import (the API lists members on channels for DIRECT ones only, and a 50,000-member
 * #general would make one huge item). DIRECT channels carry their 2–10 members, as the platform requires.
 */
export function* mapSlackChannels(context: SlackMappingContext): Generator<PlannedChannel> {
  for (const channel of context.directory.channels.values()) yield { channelKey: channel.id, item: mapSlackChannel(channel, context) };
}

export function mapSlackChannel(channel: DirectoryChannel, context: SlackMappingContext): ChannelImportItem {
  const { directory } = context;
  const record = channel.record;
  const facts: ChannelSourceFacts = compact({
    system: 'slack',
    kind: 'channel' as const,
    id: channel.id,
    workspace: directory.teamId,
    conversationType: channel.conversationKind,
    name: record.name,
    created: epochToIso(record.created),
    creator: record.creator ?? undefined,
    archived: record.is_archived === true,
    general: record.is_general === true ? true : undefined,
    topic: textOf(record.topic),
    purpose: textOf(record.purpose),
    memberIds: channel.memberIds.length === 0 ? undefined : channel.memberIds,
    typeChange: channel.typeChange,
    extra: pickExtra(record, CONSUMED),
  });
  const creator = record.creator === undefined ? undefined : directory.users.get(record.creator)?.username;
  const item: ChannelImportItem = {
    type: channel.type,
    members: channel.type === 'DIRECT' ? channel.memberIds.map((id) => directory.users.get(id)!.username) : [],
    properties: { [SOURCE_PROPERTY]: facts },
    idempotencyKey: context.keyFor('channels', slackSourceKey.channel(directory.teamId, channel.id)),
  };
  if (channel.name !== undefined) {
    item.name = channel.name;
    item.displayName = truncate(record.name ?? channel.name, LIMITS.displayNameLength);
  }
  // DIRECT channels have no owner on the platform; a creator there would only repeat a member.
  if (creator !== undefined && channel.type !== 'DIRECT') item.creator = creator;
  return item;
}

function textOf(value: { value?: string | undefined; creator?: string | undefined; last_set?: number | undefined } | undefined): TextWithAuthor | undefined {
  if (value?.value === undefined || value.value === '') return undefined;
  return compact({ text: value.value, setBy: value.creator === '' ? undefined : value.creator, setAt: epochToIso(value.last_set) });
}

/** Memberships of PUBLIC and PRIVATE channels from their `members` arrays (DIRECT ones carry theirs). */
export function* mapSlackMembers(context: SlackMappingContext): Generator<PendingMember> {
  const { directory } = context;
  for (const channel of directory.channels.values()) {
    if (channel.type === 'DIRECT') continue;
    for (const userId of channel.memberIds)
      yield {
        channelKey: channel.id,
        item: {
          username: directory.users.get(userId)!.username,
          idempotencyKey: context.keyFor('members', slackSourceKey.member(directory.teamId, channel.id, userId)),
        },
      };
  }
}
