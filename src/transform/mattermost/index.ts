/** Mattermost bulk export (JSONL) → the neutral model of src/transform/chat-export (docs/mattermost-migration.md). */
export * from './records.js';
export { directChannelId, mattermostBot, mattermostChannel, mattermostDirectChannel, mattermostThread, mattermostToText, mattermostUser, postId, postSlot, teamChannelId, type MattermostNames } from './map.js';
