import type { ChatDirectory, ChatDirectoryBuilder, MessageOutcome } from '../../transform/chat-export/index.js';

/**
 * What a whole-export source (Discord, Mattermost) gives the generic reader (read-stage.ts): its export
 * opened, a first pass that fills the directory, and the messages pass.
 */
export interface ChatExportAdapter {
  /** `Discord export`, for messages. */
  name: string;
  /** Opens the export (missing: InputMissingError; not this kind of export: a ChatportError, exit 65). */
  open(path: string): Promise<OpenChatExport>;
}

export interface OpenChatExport {
  /** The export's path, which positions start with. */
  origin: string;
  /**
   * Pass 1: every user and channel, and every user a message names (authors, mentions), into the builder,
   * in an order that is the same on every read. Holds at most one file (or one line) of messages at a time.
   */
  scan(builder: ChatDirectoryBuilder, signal?: AbortSignal): Promise<void>;
  /**
   * Pass 2: the messages, in batches (a file's or a few thousand lines' worth), each channel's in the order
   * they are to land. `owns(channelId)` false: a sharded run's other shard reads that channel, so this one
   * need not (and, where the layout allows, does not) read it.
   */
  messages(directory: ChatDirectory, owns: (channelId: string) => boolean, signal?: AbortSignal): AsyncIterable<MessageOutcome[]>;
  close(): Promise<void>;
}
