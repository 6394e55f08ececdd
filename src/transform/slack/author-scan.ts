/**
 * Pass 1 reads every day file only to find authors users.json lacks. Most day files name no such author,
 * and a look at the text proves it for far less than JSON.parse: every `"user": "<id>"` names a known
 * user, every `"bot_id": "<id>"` a known bot, and there is no bot message (which may lack a bot id and be
 * named by its username). Anything the look cannot vouch for (a bot message, an id with an escape, a
 * non-string id, a key written with escapes) sends the file to the full parse, so the directory comes out
 * exactly as if every file had been parsed.
 */

export interface KnownAuthors {
  /** True when a message by this user id teaches pass 1 nothing (listed, or already noted). */
  user(id: string): boolean;
  /** The same for a bot id. */
  bot(id: string): boolean;
}

/** A bot message without a bot id is named by its username; only the full parse can tell which is which. */
const BOT_MESSAGE = '"bot_message"';
/**
 * A key holding a \u escape: it could spell "user" in a way the look below would miss. The part before the
 * first escape cannot take a \u, so there is one way to match a string: linear in the text, however many
 * escapes a message holds.
 */
const ESCAPED_KEY = /"(?:[^"\\]|\\[^u])*\\u(?:[^"\\]|\\.)*"\s*:/;
const AUTHOR_KEY = /"(user|bot_id)"\s*:\s*/g;

/** False only when no message of the day file can name an author `known` does not know. */
export function mayNameUnknownAuthor(text: string, known: KnownAuthors): boolean {
  if (text.includes(BOT_MESSAGE)) return true;
  if (text.includes('\\u') && ESCAPED_KEY.test(text)) return true;
  AUTHOR_KEY.lastIndex = 0;
  for (let match = AUTHOR_KEY.exec(text); match !== null; match = AUTHOR_KEY.exec(text)) {
    const start = AUTHOR_KEY.lastIndex;
    if (text.charCodeAt(start) !== 0x22 /* " */) return true;
    const end = text.indexOf('"', start + 1);
    if (end === -1) return true;
    const id = text.slice(start + 1, end);
    if (id.includes('\\') || !(match[1] === 'user' ? known.user(id) : known.bot(id))) return true;
  }
  return false;
}
