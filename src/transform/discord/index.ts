/** DiscordChatExporter JSON → the neutral model of src/transform/chat-export (docs/discord-migration.md). */
export * from './records.js';
export { discordToText, mentionedIds, type DiscordNames } from './markup.js';
export { DELETED_STARTER, ReplyRoots, deletedStarterRoot, discordChannel, noteReplyChain, snowflakeTimeMs, threadCreatedFor, discordMessage, discordUser, type DiscordMessageContext, type DiscordPlacement } from './map.js';
