import type { SlackMessage } from './records.js';

/**
 * Who sent a message, in Slack's terms. User messages carry `user`; bot and integration messages may
 * carry only `bot_id` (with `username` / `bot_profile.name`), or, for old incoming webhooks, only a
 * `username`. Such bots get a placeholder user keyed by what they do carry.
 */
export type AuthorRef =
  | { kind: 'user'; id: string }
  | { kind: 'bot'; id: string; botId?: string; name?: string }
  | { kind: 'none' };

export function findAuthor(message: SlackMessage): AuthorRef {
  if (message.user !== undefined && message.user !== '') return { kind: 'user', id: message.user };
  const name = message.bot_profile?.name ?? message.username;
  if (message.bot_id !== undefined && message.bot_id !== '') return { kind: 'bot', id: message.bot_id, botId: message.bot_id, ...(name === undefined ? {} : { name }) };
  if (message.subtype === 'bot_message' && name !== undefined) return { kind: 'bot', id: `integration:${name}`, name };
  return { kind: 'none' };
}
