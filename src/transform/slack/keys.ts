import type { ImportKind } from '../../wire/imports.js';

/**
 * Makes an item's idempotency key from its stage and source key. The pipeline passes its own scheme
 * (pipeline name + stage + source key); keys must be deterministic so a re-sent chunk is recognised.
 */
export type KeyFor = (stage: ImportKind, sourceKey: string) => string;

/** The key scheme used when the pipeline passes none: `slack/<stage>/<source key>`. */
export const defaultSlackKeyFor: KeyFor = (stage, sourceKey) => `slack/${stage}/${sourceKey}`;

/**
 * Source keys: Slack ids are unique within a workspace (team), ts within a conversation. Keys include
 * the team so two workspaces migrated into one application never collide.
 */
export const slackSourceKey = {
  user: (team: string, userId: string) => `${team}/${userId}`,
  channel: (team: string, channelId: string) => `${team}/${channelId}`,
  member: (team: string, channelId: string, userId: string) => `${team}/${channelId}/${userId}`,
  /**
   * `occurrence` > 1 only for a second message with the same ts in one conversation (broken exports):
   * without it the platform would take the second for a retry of the first and drop it. `part` > 1 for
   * the continuation parts of a message split at the body length limit. `broadcast`: the channel copy of a
   * reply also sent to the channel (`…/broadcast`), a message of its own beside the reply.
   */
  message: (team: string, channelId: string, ts: string, occurrence = 1, part = 1, broadcast = false) =>
    `${team}/${channelId}/${ts}${occurrence > 1 ? `~${occurrence}` : ''}${broadcast ? '/broadcast' : ''}${part > 1 ? `/part${part}` : ''}`,
  /** The key of a reply's channel copy, from the reply's message key (the same message with `broadcast`). */
  broadcastCopyOf: (replyKey: string) => replyKey.replace(/(\/part\d+)?$/, '/broadcast$1'),
};
