import type { SlackFile, SlackMessage } from './records.js';
import { compact, pickExtra, type FileFacts, type ReactionFacts } from './source-properties.js';

const FILE_CONSUMED = ['id', 'name', 'title', 'mimetype', 'size', 'url_private', 'mode'];
/**
 * Dropped from file facts: thumbnails repeat the file at smaller sizes, and the download URLs repeat
 * `url_private` with the export's access token attached (a credential must not be copied into the platform).
 */
const FILE_DROPPED = ['url_private_download', 'permalink_public', 'thumb_64', 'thumb_80', 'thumb_160', 'thumb_360', 'thumb_480', 'thumb_720', 'thumb_800', 'thumb_960', 'thumb_1024', 'thumb_tiny', 'thumb_pdf', 'thumb_video', 'deanimate', 'deanimate_gif'];

/**
 * Removes access tokens from a file URL. Slack export links carry `?t=xoxe-…`; the token dies when
 * revoked, and it is a credential, so it is never copied into a message body or properties.
 */
export function stripUrlToken(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.searchParams.has('t')) return url;
    parsed.searchParams.delete('t');
    return parsed.toString();
  } catch {
    return url.replace(/([?&])t=[^&#]*&?/, '$1').replace(/[?&]$/, '');
  }
}

export function fileFactsOf(file: SlackFile): FileFacts {
  const state: FileFacts['state'] = file.mode === 'tombstone' ? 'deleted' : file.mode === 'hidden_by_limit' ? 'hidden' : 'available';
  const url = file.url_private ?? file.permalink;
  return compact({
    id: file.id,
    name: file.name ?? undefined,
    title: file.title ?? undefined,
    mimetype: file.mimetype,
    sizeBytes: file.size,
    url: url === undefined ? undefined : stripUrlToken(url),
    state,
    extra: pickExtra(file, FILE_CONSUMED, [...FILE_DROPPED, ...(file.permalink === url ? ['permalink'] : [])]),
  });
}

/** How a file appears in the body: a link when it is available, a note when it is not (not fetched). */
export function fileLine(file: FileFacts): string {
  const label = file.title ?? file.name ?? file.id ?? 'file';
  if (file.state === 'deleted') return `[file deleted: ${label}]`;
  if (file.state === 'hidden') return `[file hidden by Slack's plan limits: ${label}]`;
  return file.url === undefined ? `[file: ${label}]` : `[file: ${label}] ${file.url}`;
}

/** `thumbsup::skin-tone-3` → emoji `thumbsup`, skin tone 3. */
export function reactionFactsOf(reaction: NonNullable<SlackMessage['reactions']>[number]): ReactionFacts {
  const match = /^(.*?)::skin-tone-(\d)$/.exec(reaction.name);
  return compact({
    emoji: match === null ? reaction.name : match[1]!,
    skinTone: match === null ? undefined : Number(match[2]),
    name: reaction.name,
    users: reaction.users ?? [],
    count: reaction.count ?? reaction.users?.length ?? 0,
  });
}

/** Text of legacy attachments (link unfurls, integrations) for messages that have no text of their own. */
export function attachmentsText(message: SlackMessage): string {
  return (message.attachments ?? [])
    .map((a) => a.fallback ?? a.text ?? a.title ?? a.title_link ?? a.from_url ?? '')
    .filter((t) => t.trim() !== '')
    .join('\n');
}
