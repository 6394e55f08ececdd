import { detachString } from '../../shared/detach-string.js';
import type { ChatDirectoryBuilder, ExportPosition } from '../../transform/chat-export/index.js';
import { discordUser, type DiscordUser } from '../../transform/discord/index.js';
import { compareSnowflakes } from './plan.js';

/**
 * Pass 1's users: DiscordChatExporter writes a message's people as they were when its file was exported,
 * so a person renamed during the export's span is named both ways. Each user is taken from the latest
 * message (by its id, a snowflake: by time) that names them, whatever order the files are read in. Only a
 * record whose names differ from the one kept is mapped again: pass 1 meets each author often.
 */
export class LatestUsers {
  private readonly seen = new Map<string, { messageId: string; names: Names }>();
  constructor(private readonly builder: ChatDirectoryBuilder) {}

  /** A user a message names; `messageId` undefined (not a readable id) takes the user only when new. */
  note(user: DiscordUser, messageId: string | undefined, at: ExportPosition): void {
    const seen = this.seen.get(user.id);
    if (seen === undefined) {
      if (this.builder.hasUser(user.id)) return;
      this.builder.addUser(discordUser(user, at));
      this.seen.set(detachString(user.id), { messageId: messageId === undefined ? '0' : detachString(messageId), names: namesOf(user) });
      return;
    }
    if (messageId === undefined || compareSnowflakes(messageId, seen.messageId) < 0) return;
    seen.messageId = detachString(messageId);
    if (sameNames(seen.names, user)) return;
    seen.names = namesOf(user);
    this.builder.replaceUser(discordUser(user, at));
  }
}

/** What a user record names them by (the platform name, display name and kind are made of these). */
type Names = Pick<DiscordUser, 'name' | 'discriminator' | 'nickname' | 'isBot'>;

/** Copies, so that no string of them pins the parser's input (detach-string.ts). */
const namesOf = (u: DiscordUser): Names => structuredClone({ name: u.name, discriminator: u.discriminator, nickname: u.nickname, isBot: u.isBot });

const sameNames = (a: Names, u: DiscordUser): boolean => a.name === u.name && a.discriminator === u.discriminator && a.nickname === u.nickname && a.isBot === u.isBot;
