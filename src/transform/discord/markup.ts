/**
 * Discord markup → readable text. Mentions `<@id>`, `<@!id>` become `@username` (the platform name the
 * user was imported as), channels `<#id>` become `#name`, roles `<@&id>` `@role:<id>` (an export has no
 * role list), custom emoji `<:name:id>` and `<a:name:id>` `:name:`, timestamps `<t:unix[:style]>` an ISO
 * 8601 UTC time. Text DiscordChatExporter already rendered (`@name`) passes through unchanged, as does
 * Markdown (it reads as text).
 */
export interface DiscordNames {
  user(id: string): string | undefined;
  channel(id: string): string | undefined;
}

const TOKEN = /<(@!?|#|@&|a?:[\w~-]{1,64}:|t:)(-?\d{1,20})(?::[tTdDfFR])?>/g;

export function discordToText(content: string, names: DiscordNames): string {
  if (!content.includes('<')) return content;
  return content.replace(TOKEN, (whole, kind: string, id: string) => {
    if (kind === '@' || kind === '@!') {
      const name = names.user(id);
      return name === undefined ? `@unknown-user:${id}` : `@${name}`;
    }
    if (kind === '#') {
      const name = names.channel(id);
      return name === undefined ? `#unknown-channel:${id}` : `#${name}`;
    }
    if (kind === '@&') return `@role:${id}`;
    if (kind === 't:') {
      const ms = Number(id) * 1000;
      return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : whole;
    }
    // <:name:id> or <a:name:id>
    return `:${kind.split(':')[1]}:`;
  });
}

/** The user and channel ids a content's mention tokens name, in order, each once. */
export function mentionedIds(content: string): { users: string[]; channels: string[]; roles: string[] } {
  const users = new Set<string>();
  const channels = new Set<string>();
  const roles = new Set<string>();
  for (const m of content.matchAll(TOKEN)) {
    const [, kind, id] = m;
    if (kind === '@' || kind === '@!') users.add(id!);
    else if (kind === '#') channels.add(id!);
    else if (kind === '@&') roles.add(id!);
  }
  return { users: [...users], channels: [...channels], roles: [...roles] };
}
