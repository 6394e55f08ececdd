/**
 * Slack mrkdwn → readable plain text. The import has no mention or link fields, so `<@U123>` becomes
 * `@alice` (the imported username, so people recognise who was meant), links become `label (url)`, and
 * the HTML entities Slack escapes `&`, `<` and `>` with are decoded. Emphasis markers (`*b*`, `_i_`,
 * `~s~`), emoji codes and quote markers are already readable and stay as written. What was mentioned is
 * returned as well, so the ids can be kept in properties.
 */
export interface MentionLookup {
  /** The imported username of a Slack user id, when known. */
  user(id: string): string | undefined;
  /** The imported channel name of a Slack channel id, when known. */
  channel(id: string): string | undefined;
}

export interface ConvertedText {
  text: string;
  mentions: { users: string[]; channels: string[]; groups: string[]; broadcasts: string[] };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", apos: "'" };
/** The entities with their `;`, in the order they are tried. */
const ENTITY_NAMES = Object.keys(ENTITIES).map((name) => ({ name: `${name};`, char: ENTITIES[name]! }));
const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;
const AMPERSAND = 0x26;

/**
 * Replaces every `<token>` (no `<` or `>` inside) and every entity, left to right, as
 * text.replace(/<([^<>]*)>|&(amp|lt|gt|quot|#39|#x27|apos);/g, …) would: a scan, not that regex, as it ran
 * for every message holding a mention, a link or an entity, with a call back per match.
 */
export function convertMrkdwn(text: string, lookup: MentionLookup): ConvertedText {
  const mentions: ConvertedText['mentions'] = { users: [], channels: [], groups: [], broadcasts: [] };
  // Most messages hold neither a token nor an entity: no scan for them.
  if (text.indexOf('<') === -1 && text.indexOf('&') === -1) return { text, mentions };
  let converted = '';
  let copied = 0;
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === LESS_THAN) {
      const end = tokenEnd(text, at + 1);
      if (end < 0) continue;
      converted += text.slice(copied, at) + convertToken(text.slice(at + 1, end), lookup, mentions);
      copied = end + 1;
      at = end;
    } else if (c === AMPERSAND) {
      const entity = entityAt(text, at + 1);
      if (entity === undefined) continue;
      converted += text.slice(copied, at) + entity.char;
      copied = at + 1 + entity.name.length;
      at = copied - 1;
    }
  }
  return { text: converted + text.slice(copied), mentions };
}

/** Where the token opened before `from` ends: its `>`, or -1 when a `<` or the end of the text comes first. */
function tokenEnd(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === GREATER_THAN) return at;
    if (c === LESS_THAN) return -1;
  }
  return -1;
}

function entityAt(text: string, from: number): { name: string; char: string } | undefined {
  for (const entity of ENTITY_NAMES) if (text.startsWith(entity.name, from)) return entity;
  return undefined;
}

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27|apos);/g, (_m, entity: string) => ENTITIES[entity]!);
}

function convertToken(token: string, lookup: MentionLookup, mentions: ConvertedText['mentions']): string {
  const bar = token.indexOf('|');
  const target = bar < 0 ? token : token.slice(0, bar);
  const label = bar < 0 ? undefined : decodeEntities(token.slice(bar + 1));
  const labelText = label === undefined || label === '' ? undefined : label;

  if (target.startsWith('@')) {
    const id = target.slice(1);
    pushOnce(mentions.users, id);
    const name = lookup.user(id) ?? labelText?.replace(/^@/, '') ?? id;
    return `@${name}`;
  }
  if (target.startsWith('#')) {
    const id = target.slice(1);
    pushOnce(mentions.channels, id);
    return `#${lookup.channel(id) ?? labelText?.replace(/^#/, '') ?? id}`;
  }
  if (target.startsWith('!')) return convertSpecial(target.slice(1), labelText, mentions);
  const url = decodeEntities(target);
  if (url.startsWith('mailto:')) {
    const address = url.slice('mailto:'.length);
    return labelText === undefined || labelText === address ? address : `${labelText} (${address})`;
  }
  return labelText === undefined || labelText === url ? url : `${labelText} (${url})`;
}

function convertSpecial(command: string, label: string | undefined, mentions: ConvertedText['mentions']): string {
  if (command === 'here' || command === 'channel' || command === 'everyone') {
    pushOnce(mentions.broadcasts, command);
    return `@${command}`;
  }
  if (command.startsWith('subteam^')) {
    const id = command.slice('subteam^'.length);
    pushOnce(mentions.groups, id);
    return label === undefined ? `@${id}` : label.startsWith('@') ? label : `@${label}`;
  }
  if (command.startsWith('date^')) {
    // <!date^epoch^{format}^optional_link|fallback>: the fallback is what Slack shows where it cannot render.
    if (label !== undefined) return label;
    const epoch = Number(command.split('^')[1]);
    return Number.isFinite(epoch) ? new Date(epoch * 1000).toISOString() : command;
  }
  return label ?? `@${command}`;
}

function pushOnce(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}
