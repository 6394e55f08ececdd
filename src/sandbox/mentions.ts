import type { Store, UserRec } from './store.js';

/**
 * Mentions the server finds in a body (decisions.md "Enumerations"): `@name` of an existing user (USER,
 * with the user), `@channel` and `@here` (CHANNEL); `tag` is the literal text, positions are UTF-16
 * offsets (end exclusive), as JavaScript strings count.
 */
export interface Mention {
  type: 'USER' | 'CHANNEL';
  tag: string;
  startPosition: number;
  endPosition: number;
  user?: UserRec;
}

const MENTION = /(?<![\p{L}\p{N}._-])@([\p{L}\p{N}._-]*[\p{L}\p{N}])/gu;
const CHANNEL_WIDE = new Set(['channel', 'here']);

export function findMentions(store: Store, body: string | undefined): Mention[] {
  if (body === undefined || !body.includes('@')) return [];
  const out: Mention[] = [];
  for (const match of body.matchAll(MENTION)) {
    const name = match[1]!;
    const tag = match[0];
    const at = { tag, startPosition: match.index, endPosition: match.index + tag.length };
    if (CHANNEL_WIDE.has(name)) out.push({ type: 'CHANNEL', ...at });
    else {
      const user = store.userByName(name);
      if (user) out.push({ type: 'USER', ...at, user });
    }
  }
  return out;
}
