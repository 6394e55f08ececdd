/** The neutral mapping shared by the Discord and Mattermost sources (docs/source-properties.md). */
export type { ExportPosition, MessageOutcome, SourceChannel, SourceMessage, SourceUser, UserHint } from './model.js';
export { createChatDirectoryBuilder, type ChatDirectory, type ChatDirectoryBuilder, type ChatDirectoryChannel, type ChatDirectoryUser, type DirectoryRejection } from './directory.js';
export { chatSourceKey, mapChatChannel, mapChatMembers, mapChatMessage, mapChatUser, type ChatKeyFor, type ChatMappingContext, type MappedMessage } from './items.js';
