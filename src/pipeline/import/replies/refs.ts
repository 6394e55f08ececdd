import { mappedByChatport, type StageConfig } from '../../../config/index.js';
import { CHANNEL_KEY_PROPERTY, type Accepted } from '../../../transform/index.js';

/**
 * How messages name each other for reply threads. A pipeline with `thread:` marks every message with its
 * source key (`properties.chatportKey`); a message of an export block (Slack, Discord, Mattermost) carries
 * its source id (`properties.source.id`, a part number when a long message was split; docs/source-properties.md). A reply names its root by the root's ref; each record has its
 * own reply key, which is what the journal and the look-up before a re-send go by.
 */

interface SlackFacts {
  id?: string;
  thread?: { root?: string; isRoot?: boolean; rootMissing?: boolean; broadcast?: boolean; threadId?: unknown };
  part?: { index: number };
}

const slackFacts = (properties: unknown): SlackFacts | undefined => (properties as { source?: SlackFacts } | undefined)?.source;

/** Whether the stage sends replies into reply threads (rather than flattening them into the channel). */
export function sendsReplies(stage: StageConfig): boolean {
  return stage.stage === 'messages' && stage.options.threads === 'replies' && (mappedByChatport(stage) || stage.thread !== undefined);
}

/** The ref of the message a record replies to, or undefined for a record that goes into the channel. */
export function parentRefOf(stage: StageConfig, record: Accepted): string | undefined {
  if (!mappedByChatport(stage)) return record.parentRef;
  const thread = slackFacts(record.item.properties)?.thread;
  return thread && thread.isRoot !== true && thread.rootMissing !== true ? thread.root : undefined;
}

/**
 * Whether a record is a reply imported in its channel's place because its root is known to be missing from
 * the export (Slack `rootMissing`): an orphan, counted as one (docs/threads.md "Orphans").
 */
export function isPlacedOrphan(stage: StageConfig, record: Accepted): boolean {
  if (!mappedByChatport(stage)) return false;
  const thread = slackFacts(record.item.properties)?.thread;
  return thread !== undefined && thread.isRoot !== true && thread.rootMissing === true;
}

/**
 * Whether a reply has a copy of its own in its channel, at its time: a Slack reply "also sent to the channel"
 * (thread_broadcast), whose copy the import put there (src/transform/slack/broadcast-copy.ts). With no root on
 * the platform that copy stands for it: sending the reply to the channel too would show it twice.
 */
export function hasChannelCopy(stage: StageConfig, properties: unknown): boolean {
  return mappedByChatport(stage) && slackFacts(properties)?.thread?.broadcast === true;
}

/** The ref by which replies name a message (from its properties, as sent or as the platform answers it). */
export function messageRefOf(stage: StageConfig, properties: unknown): string | undefined {
  if (!mappedByChatport(stage)) {
    const key = (properties as Record<string, unknown> | undefined)?.[CHANNEL_KEY_PROPERTY];
    return typeof key === 'string' ? key : undefined;
  }
  const facts = slackFacts(properties);
  return facts?.id !== undefined && (facts.part === undefined || facts.part.index === 1) ? facts.id : undefined;
}

/**
 * The refs by which replies may name a root: its own, and for an export's root whose thread has an id of
 * its own (`source.thread.threadId`: a Discord thread started without a message), that id too.
 */
export function rootRefsOf(stage: StageConfig, properties: unknown): string[] {
  const ref = messageRefOf(stage, properties);
  const thread = mappedByChatport(stage) ? slackFacts(properties)?.thread : undefined;
  const alias = thread?.isRoot === true && typeof thread.threadId === 'string' ? thread.threadId : undefined;
  return [...(ref === undefined ? [] : [ref]), ...(alias === undefined ? [] : [alias])];
}

/**
 * Whether a message the platform holds can be one of the stage's replies: an export's replies carry
 * `source.thread` with `isRoot: false`; a pipeline with `thread:` marks nothing, so any message can be.
 */
export function mayBeReply(stage: StageConfig, properties: unknown): boolean {
  if (!mappedByChatport(stage)) return true;
  return slackFacts(properties)?.thread?.isRoot === false;
}

/** A record's own key among replies: unique per record (a split Slack message's parts each have one). */
export function replyKeyOf(stage: StageConfig, properties: unknown): string | undefined {
  if (!mappedByChatport(stage)) return messageRefOf(stage, properties);
  const facts = slackFacts(properties);
  if (facts?.id === undefined) return undefined;
  return facts.part === undefined ? facts.id : `${facts.id}#${facts.part.index}`;
}

/**
 * Whether a reply of the stage may name a message an earlier run sent as a reply (into a thread): a Discord
 * inline reply, or a thread opened on one, in a later `--after` export; a `thread:` pipeline's reply to a
 * reply of an earlier run. Slack and Mattermost replies name their thread's root, never a reply.
 */
export function repliesMayNest(stage: StageConfig): boolean {
  return stage.platformExport?.platform === 'discord' || (!mappedByChatport(stage) && stage.thread !== undefined);
}

/** The ref by which replies name the record of a reply key (replyKeyOf's inverse); undefined for a later part of a split message. */
export function refOfReplyKey(stage: StageConfig, key: string): string | undefined {
  if (!mappedByChatport(stage)) return key;
  const part = key.lastIndexOf('#');
  if (part === -1) return key;
  return key.slice(part + 1) === '1' ? key.slice(0, part) : undefined;
}
