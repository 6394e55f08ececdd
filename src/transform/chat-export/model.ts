import type { ChannelSourceFacts, MessageSourceFacts, TextWithAuthor, UserSourceFacts } from '../slack/source-properties.js';

/**
 * The neutral form the Discord and Mattermost sources read their exports into (Slack has its own, older
 * path). A source adapter turns its records into these; src/transform/chat-export maps them to import
 * items with the one properties shape of docs/source-properties.md.
 */

/** Where a record sits in the export: the file (inside the export) and its record number there. */
export interface ExportPosition {
  file: string;
  index: number;
  /** 1-based line, for a file of one record a line (a Mattermost JSONL). */
  line?: number;
}

/** A user the export lists, or one a message or channel names (then a placeholder is made). */
export interface SourceUser {
  id: string;
  /** The handle, from which the platform name is made valid and unique. */
  handle?: string;
  displayName?: string;
  kind: 'person' | 'bot' | 'app';
  /** Facts for `properties.source` beyond system, kind, id, workspace and userKind. */
  facts?: Partial<Omit<UserSourceFacts, 'system' | 'kind' | 'id' | 'workspace' | 'userKind'>>;
  isGuest?: boolean;
  position: ExportPosition;
}

/** What a record that names a user knows of them, for a placeholder when the export lacks the user. */
export interface UserHint {
  handle?: string;
  displayName?: string;
  kind?: 'person' | 'bot' | 'app';
  /** Why the export lacks them: `author of a message`, `member of a channel`, … */
  reason: string;
}

export interface SourceChannel {
  id: string;
  /** The source's kind of conversation (Discord `GuildTextChat`, Mattermost `O`, …). */
  conversationType: string;
  /** DIRECT for a direct or group conversation (PRIVATE above the platform's member limit). */
  natural: 'PUBLIC' | 'PRIVATE' | 'DIRECT';
  name?: string;
  displayName?: string;
  /** Source user ids, in the source's order; repeated ids are dropped. */
  memberIds: string[];
  facts?: Partial<Omit<ChannelSourceFacts, 'system' | 'kind' | 'id' | 'workspace' | 'conversationType' | 'memberIds' | 'typeChange'>>;
  position: ExportPosition;
}

/** A message as read in the messages pass, its body already readable text. */
export interface SourceMessage {
  id: string;
  channelId: string;
  /** Source user id; undefined for a system message without one. */
  authorId?: string;
  /** Set for a system message: its source type (`ChannelPinnedMessage`, `system_join_channel`, …). */
  system?: string;
  body: string;
  facts: Omit<MessageSourceFacts, 'system' | 'kind' | 'id' | 'workspace' | 'channel' | 'part'>;
  position: ExportPosition;
  /**
   * Mattermost, whose ids hash the text: the ids of the export's root posts of this one's slot (channel,
   * time, author), in order, when it has others (Accepted.slotSiblings).
   */
  slotSiblings?: readonly string[];
}

/** What the messages pass meets: a message, or a record skipped or rejected as it was read. */
export type MessageOutcome =
  | { kind: 'message'; message: SourceMessage }
  | { kind: 'skipped'; position: ExportPosition; because: string; channelId?: string; raw?: unknown }
  | { kind: 'rejected'; position: ExportPosition; field: string; expected: string; reason: string; raw: unknown; channelId?: string };

export type { TextWithAuthor };
