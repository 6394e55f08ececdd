import type { SlackFile, SlackMessage } from './records.js';
import { compact, pickExtra, type FileFacts, type ReactionFacts } from './source-properties.js';

const FILE_CONSUMED: ReadonlySet<string> = new Set(['id', 'name', 'title', 'mimetype', 'size', 'url_private', 'mode']);
/**
 * Dropped from file facts: thumbnails repeat the file at smaller sizes, and the download URLs repeat
 * `url_private` with the export's access token attached (a credential must not be copied into the platform).
 */
const FILE_DROPPED = ['url_private_download', 'permalink_public', 'thumb_64', 'thumb_80', 'thumb_160', 'thumb_360', 'thumb_480', 'thumb_720', 'thumb_800', 'thumb_960', 'thumb_1024', 'thumb_tiny', 'thumb_pdf', 'thumb_video', 'deanimate', 'deanimate_gif'];
const FILE_DROPPED_SET: ReadonlySet<string> = new Set(FILE_DROPPED);
/** And `permalink` when it is the file's url (no url_private): it would repeat `url`. */
const FILE_DROPPED_WITH_PERMALINK: ReadonlySet<string> = new Set([...FILE_DROPPED, 'permalink']);

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
    extra: pickExtra(file, FILE_CONSUMED, file.permalink === url ? FILE_DROPPED_WITH_PERMALINK : FILE_DROPPED_SET),
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
    .map((a) => a.fallback ?? a.text ?? a.title ?? a.title_link ?? a.from_url ?? partsText(a))
    .filter((t) => t.trim() !== '')
    .join('\n');
}

/**
 * An attachment with none of the usual texts (integrations leave out `fallback`, which Slack asks for but
 * does not require): its other parts, so a build report of pretext and fields is not skipped as empty.
 */
function partsText(attachment: Json): string {
  const fields = Array.isArray(attachment.fields) ? attachment.fields.filter(isObject).map((f) => [str(f.title), str(f.value)].filter((t) => t !== '').join(': ')) : [];
  return [str(attachment.pretext), str(attachment.author_name), ...fields, blocksText(attachment.blocks), str(attachment.footer)].filter((t) => t.trim() !== '').join('\n');
}

/**
 * The mrkdwn of a message's `blocks`, for messages whose `text` is empty (apps and workflows may post
 * blocks alone): without it such a message would be skipped as empty and its content lost. Rich text
 * elements become the mrkdwn they stand for (`<@U1>`, `<#C1>`, `:emoji:`, `<!date^…|fallback>`), their plain text escaped as
 * Slack escapes `text`, so the usual conversion applies; section, header and context blocks give their text.
 * Unknown shapes give nothing rather than fail.
 */
export function blocksText(blocks: unknown): string {
  if (!Array.isArray(blocks)) return '';
  return blocks.map(blockText).filter((t) => t.trim() !== '').join('\n');
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const escapeText = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function blockText(block: unknown): string {
  if (!isObject(block)) return '';
  const textOf = (t: unknown) => (isObject(t) ? (t.type === 'plain_text' ? escapeText(str(t.text)) : str(t.text)) : '');
  switch (block.type) {
    case 'rich_text':
      return richElements(block.elements, '\n');
    case 'section':
      return [textOf(block.text), ...(Array.isArray(block.fields) ? block.fields.map(textOf) : [])].filter((t) => t !== '').join('\n');
    case 'header':
      return textOf(block.text);
    case 'image': {
      // Apps post charts and screenshots as an image block alone: its label and link, as a file's line.
      const label = textOf(block.title) || escapeText(str(block.alt_text)) || 'image';
      const url = str(block.image_url);
      return url === '' ? `[image: ${label}]` : `[image: ${label}] <${escapeText(url)}>`;
    }
    case 'context':
      return Array.isArray(block.elements) ? block.elements.map(textOf).filter((t) => t !== '').join(' ') : '';
    default:
      return '';
  }
}

/** A null entry (Slack shows nothing for it) is left out: no empty line, and a list's numbers go on. */
const entriesOf = (elements: unknown): Json[] => (Array.isArray(elements) ? elements.filter(isObject) : []);

function richElements(elements: unknown, separator: string): string {
  return entriesOf(elements).map(richElement).join(separator);
}

function richElement(element: unknown): string {
  if (!isObject(element)) return '';
  switch (element.type) {
    case 'rich_text_section':
      return richElements(element.elements, '');
    case 'rich_text_preformatted':
      return '```' + richElements(element.elements, '') + '```';
    case 'rich_text_quote':
      return richElements(element.elements, '').split('\n').map((l) => `> ${l}`).join('\n');
    case 'rich_text_list': {
      // Numbered as Slack shows an ordered list (from its offset), so "step 2" still says 2.
      const first = typeof element.offset === 'number' ? element.offset + 1 : 1;
      const marker = (i: number) => (element.style === 'ordered' ? `${first + i}.` : '•');
      return entriesOf(element.elements).map((item, i) => `${marker(i)} ${richElement(item)}`).join('\n');
    }
    case 'text':
      return escapeText(str(element.text));
    case 'link':
      return element.text === undefined ? `<${str(element.url)}>` : `<${str(element.url)}|${escapeText(str(element.text))}>`;
    case 'user':
      return `<@${str(element.user_id)}>`;
    case 'channel':
      return `<#${str(element.channel_id)}>`;
    case 'usergroup':
      return `<!subteam^${str(element.usergroup_id)}>`;
    case 'broadcast':
      return `<!${str(element.range)}>`;
    case 'emoji':
      return `:${str(element.name)}:`;
    case 'date': {
      // As the mrkdwn date token, so it reads as its fallback, else its time (mrkdwn.ts).
      const fallback = typeof element.fallback === 'string' ? `|${escapeText(element.fallback)}` : '';
      return `<!date^${String(element.timestamp ?? '')}^${str(element.format)}${fallback}>`;
    }
    case 'color':
      return escapeText(str(element.value));
    default:
      return escapeText(str(element.text));
  }
}
