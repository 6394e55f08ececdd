/**
 * Pure mapping of Slack export records into import items (src/wire/imports.ts). No I/O: the pipeline
 * reads records with src/sources/slack and passes them here. See docs/slack-migration.md for the order
 * of calls and docs/source-properties.md for `properties.source`.
 */
export { findAuthor, type AuthorRef } from './authors.js';
export { mayNameUnknownAuthor, type KnownAuthors } from './author-scan.js';
export { mapSlackChannel, mapSlackChannels, mapSlackMembers, type PendingMember, type PlannedChannel } from './channels.js';
export { createSlackMappingContext, type Outcome, type SlackMappingContext, type SlackMappingOptions } from './context.js';
export {
  createSlackDirectoryBuilder,
  type ConversationKind,
  type DirectoryChannel,
  type DirectoryRejection,
  type DirectoryUser,
  type RecordPosition,
  type SlackDirectory,
  type SlackDirectoryBuilder,
  type SlackDirectoryOptions,
} from './directory.js';
export { missingRootOf, underFoundRoot } from './earlier-root.js';
export { defaultSlackKeyFor, slackSourceKey, type KeyFor } from './keys.js';
export { stripUrlToken } from './message-body.js';
export { splitBody } from '../split-body.js';
export { createSlackMessageMapper, type PendingMessage, type RepliesBeforeLateRoots, type SlackMessageMapper } from './messages.js';
export { convertMrkdwn, type ConvertedText, type MentionLookup } from './mrkdwn.js';
export { createNameAllocator, makeValidName } from '../names.js';
export { compareTs, tsToIso } from './records.js';
export { resolveMemberChannel, resolveMessageChannel, type Resolved } from './resolve-channel.js';
export { SOURCE_PROPERTY, type ChannelSourceFacts, type MessageSourceFacts, type SourceFacts, type UserSourceFacts } from './source-properties.js';
export { mapSlackUser, mapSlackUsers } from './users.js';
