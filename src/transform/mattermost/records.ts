import { z } from 'zod';

/**
 * The Mattermost bulk export (JSONL, version 1) lines chatport reads. Loose objects: fields not named
 * here are kept in `properties.source.extra`. Entities are named, not numbered: a team by its name, a
 * channel by team and name, a user by username, a post by channel, time and author.
 */
const name = z.string().min(1);
const optStr = z.string().nullish();
const millis = z.number().int().nonnegative();

export const MattermostTeam = z.looseObject({ name, display_name: optStr, type: optStr, description: optStr });
export type MattermostTeam = z.infer<typeof MattermostTeam>;

export const MattermostChannel = z.looseObject({
  team: name,
  name,
  display_name: optStr,
  type: z.enum(['O', 'P']),
  header: optStr,
  purpose: optStr,
  deleted_at: z.number().nullish(),
});
export type MattermostChannel = z.infer<typeof MattermostChannel>;

export const MattermostUser = z.looseObject({
  username: name,
  email: optStr,
  nickname: optStr,
  first_name: optStr,
  last_name: optStr,
  position: optStr,
  roles: optStr,
  delete_at: z.number().nullish(),
  is_bot: z.boolean().nullish(),
  teams: z
    .array(z.looseObject({ name, roles: optStr, channels: z.array(z.looseObject({ name, roles: optStr })).nullish() }))
    .nullish(),
});
export type MattermostUser = z.infer<typeof MattermostUser>;

const reaction = z.looseObject({ user: name, emoji_name: name, create_at: millis.nullish() });
const attachment = z.looseObject({ path: name });

export const MattermostReply = z.looseObject({
  user: name,
  message: z.string(),
  create_at: millis,
  edit_at: z.number().nullish(),
  type: optStr,
  props: z.record(z.string(), z.unknown()).nullish(),
  reactions: z.array(reaction).nullish(),
  attachments: z.array(attachment).nullish(),
  is_pinned: z.boolean().nullish(),
});
export type MattermostReply = z.infer<typeof MattermostReply>;

export const MattermostPost = MattermostReply.extend({ team: name, channel: name, replies: z.array(MattermostReply).nullish() });
export type MattermostPost = z.infer<typeof MattermostPost>;

/**
 * A direct or group channel. Older exports list its people as `members` (usernames); current
 * ones as `participants` (a username with that person's channel settings) and no `members`.
 */
export const MattermostDirectChannel = z
  .looseObject({
    members: z.array(name).min(1).nullish(),
    participants: z.array(z.looseObject({ username: name })).min(1).nullish(),
    header: optStr,
    favorited_by: z.array(name).nullish(),
  })
  .refine((c) => (c.members ?? c.participants) != null, { message: 'members (or participants) listing the channel\'s people', path: ['members'] });
export type MattermostDirectChannel = z.infer<typeof MattermostDirectChannel>;

/** A direct channel's usernames, from `participants` (newer exports) or `members` (older ones). */
export const directChannelMembers = (c: MattermostDirectChannel): string[] => c.participants?.map((p) => p.username) ?? c.members ?? [];

/** A bot account (`bot` lines, newer exports): bots have no `user` line. */
export const MattermostBot = z.looseObject({ username: name, display_name: optStr, owner: optStr, description: optStr, delete_at: z.number().nullish() });
export type MattermostBot = z.infer<typeof MattermostBot>;

export const MattermostDirectPost = MattermostReply.extend({ channel_members: z.array(name).min(1), replies: z.array(MattermostReply).nullish() });
export type MattermostDirectPost = z.infer<typeof MattermostDirectPost>;

/** Line types and the field that holds each one's record. */
export const LINE_TYPES = ['version', 'team', 'channel', 'user', 'post', 'direct_channel', 'direct_post', 'emoji', 'scheme', 'bot'] as const;
