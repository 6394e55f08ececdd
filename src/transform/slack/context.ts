import type { DirectoryUser, RecordPosition, SlackDirectory } from './directory.js';
import { defaultSlackKeyFor, type KeyFor } from './keys.js';
import type { MentionLookup } from './mrkdwn.js';

/** Options of the Slack mapping. */
export interface SlackMappingOptions {
  /** Makes idempotency keys; default `defaultSlackKeyFor` (`slack/<stage>/<source key>`). */
  keyFor?: KeyFor;
  /**
   * What to do with join/leave/topic/purpose/rename/archive and other system messages: `import` them as
   * SYSTEM_TEXT (default) or `skip` them (counted as skipped, reason `system message: <subtype>`).
   */
  systemMessages?: 'import' | 'skip';
  /**
   * Thread roots remembered per channel to tell a reply whose root is missing from the export. Past
   * this many, the oldest are forgotten and replies to them are not checked (they still carry the root's
   * reference). Default 100,000 (a few megabytes).
   */
  maxTrackedThreadRoots?: number;
  /**
   * Whether a reply also sent to the channel (`thread_broadcast`) gets a channel copy beside it: true when
   * replies go into reply threads (default), false when they are flattened into the channel, where the
   * reply itself already stands at its time.
   */
  broadcastCopies?: boolean;
}

export interface SlackMappingContext {
  directory: SlackDirectory;
  keyFor: KeyFor;
  systemMessages: 'import' | 'skip';
  maxTrackedThreadRoots: number;
  broadcastCopies: boolean;
  mentions: MentionLookup;
}

export function createSlackMappingContext(directory: SlackDirectory, options: SlackMappingOptions = {}): SlackMappingContext {
  return {
    directory,
    keyFor: options.keyFor ?? defaultSlackKeyFor,
    systemMessages: options.systemMessages ?? 'import',
    maxTrackedThreadRoots: options.maxTrackedThreadRoots ?? 100_000,
    broadcastCopies: options.broadcastCopies ?? true,
    mentions: {
      user: (id) => directory.users.get(id)?.username,
      channel: (id) => {
        const channel = directory.channels.get(id);
        return channel?.name ?? channel?.record.name;
      },
    },
  };
}

/**
 * The outcome of mapping one source record: items, or why it was skipped or rejected. `ts`: a message's
 * Slack ts, when it parsed (what puts a channel's day files in ts order, src/pipeline/slack/day-order.ts).
 */
export type Outcome<T> =
  | { outcome: 'items'; position: RecordPosition; items: T[]; ts?: string }
  | { outcome: 'skipped'; position: RecordPosition; reason: string; raw?: unknown; ts?: string }
  | { outcome: 'rejected'; position: RecordPosition; field: string; reason: string; raw: unknown; ts?: string };

/** The user a Slack user id (or bot id) was imported as. */
export function usernameOf(directory: SlackDirectory, id: string): string | undefined {
  return directory.users.get(id)?.username;
}

export function userOf(directory: SlackDirectory, id: string): DirectoryUser | undefined {
  return directory.users.get(id);
}
