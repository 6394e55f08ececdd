import { mayHoldLoneSurrogate } from '../../shared/json-checks/lone-surrogates.js';
import type { TextMarks } from '../../shared/json-checks/export-text.js';
import { SLACK_EXPORT_ERROR, SlackExportError } from './errors.js';
import type { SlackExport } from './export.js';
import { resolveSlackExportLimits, type SlackExportLimits } from './limits.js';
import { readJsonArray, readWholeText, type PositionedValue } from './read-json.js';

/** The four conversation lists and what kind of conversation each holds. */
export const CONVERSATION_FILES = {
  'channels.json': 'channel',
  'groups.json': 'group',
  'dms.json': 'dm',
  'mpims.json': 'mpim',
} as const;
export type ConversationKind = (typeof CONVERSATION_FILES)[keyof typeof CONVERSATION_FILES];

export interface PositionedConversation extends PositionedValue {
  kind: ConversationKind;
}

/**
 * users.json records as raw JSON values, one at a time. Enterprise Grid exports name the file
 * `org_users.json`; when both exist, users.json is the workspace's own list and wins.
 */
export async function* readSlackUsers(exp: SlackExport): AsyncGenerator<PositionedValue> {
  const file = exp.has('users.json') ? 'users.json' : exp.has('org_users.json') ? 'org_users.json' : undefined;
  if (file === undefined) return;
  yield* readJsonArray(exp, file);
}

/** channels.json, groups.json, dms.json and mpims.json records, in that order; absent files are skipped. */
export async function* readSlackConversations(exp: SlackExport): AsyncGenerator<PositionedConversation> {
  for (const [file, kind] of Object.entries(CONVERSATION_FILES) as [keyof typeof CONVERSATION_FILES, ConversationKind][]) {
    if (!exp.has(file)) continue;
    for await (const item of readJsonArray(exp, file)) yield { ...item, kind };
  }
}

const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.json$/;
const NOT_BLANK = /\S/;

/**
 * Conversation folders and their day files, in date order. Only `<folder>/YYYY-MM-DD.json` counts as a day
 * file; anything else is listed by `listUnrecognizedFiles`. Folders are keyed by their name in composed
 * Unicode form (NFC): an export unpacked and packed again on macOS names `café/` decomposed, while
 * channels.json keeps Slack's composed name, and both stand for the same conversation.
 */
export function listConversationFolders(exp: SlackExport): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const path of exp.files) {
    const parts = path.split('/');
    if (parts.length !== 2 || !DAY_FILE.test(parts[1]!)) continue;
    const folder = parts[0]!.normalize('NFC');
    const days = folders.get(folder) ?? [];
    days.push(path);
    folders.set(folder, days);
  }
  // By day file name: one folder key may gather two spellings of the folder, whose paths sort apart.
  for (const days of folders.values()) days.sort(byDayThenPath);
  return folders;
}

function byDayThenPath(a: string, b: string): number {
  const dayA = a.slice(a.lastIndexOf('/') + 1);
  const dayB = b.slice(b.lastIndexOf('/') + 1);
  return dayA !== dayB ? (dayA < dayB ? -1 : 1) : a < b ? -1 : a > b ? 1 : 0;
}

/** Files that are neither a known top-level file nor a day file: reported, not read. */
export function listUnrecognizedFiles(exp: SlackExport): string[] {
  return exp.files.filter((path) => {
    const parts = path.split('/');
    if (parts.length === 1) return !parts[0]!.endsWith('.json');
    return !(parts.length === 2 && DAY_FILE.test(parts[1]!));
  });
}

/**
 * The folder that holds a conversation's day files. Slack names public and private channels' and group
 * DMs' folders by name and DMs' folders by id; some tools use the id everywhere, so both are tried.
 */
export function findConversationFolder(folders: ReadonlyMap<string, unknown>, conversation: { id: string; name?: string | undefined }): string | undefined {
  // listConversationFolders keys folders by their NFC name.
  const name = conversation.name?.normalize('NFC');
  if (name !== undefined && folders.has(name)) return name;
  const id = conversation.id.normalize('NFC');
  if (folders.has(id)) return id;
  return undefined;
}

/** One day file of one conversation: its messages as raw JSON values, or why it could not be read. */
export type SlackDay =
  /** With what the file's text showed: bytes that are not UTF-8 (marked, see readWholeText), surrogate escapes. */
  | ({ file: string; date: string; messages: unknown[] } & TextMarks)
  | { file: string; date: string; problem: string };

export interface DayReadOptions {
  /** A cheap look at a day file's text: false skips it unparsed (pass 1 parses only what can teach it something). */
  worthParsing?(text: string): boolean;
}

/**
 * The day files of one conversation, one at a time, in date order. A day file is parsed whole (its
 * messages must be sorted by ts, and one day of one channel is small); only one is held at a time. A day
 * file that is not a JSON array is reported as a problem and the reading goes on: one broken file must
 * not stop a migration.
 */
export async function* readConversationDays(exp: SlackExport, dayFiles: readonly string[], limits: SlackExportLimits = {}, options: DayReadOptions = {}): AsyncGenerator<SlackDay> {
  const { maxWholeFileBytes } = resolveSlackExportLimits(limits);
  for (const file of dayFiles) {
    const date = DAY_FILE.exec(file.slice(file.lastIndexOf('/') + 1))?.[1] ?? '';
    const { text, invalidBytes } = await readWholeText(exp, file, maxWholeFileBytes);
    if (options.worthParsing?.(text) === false) continue;
    let parsed: unknown;
    try {
      // Not text.trim(): it would copy the whole file (Slack ends day files with a newline).
      parsed = NOT_BLANK.test(text) ? JSON.parse(text) : [];
    } catch (cause) {
      yield { file, date, problem: `not valid JSON (${(cause as Error).message})` };
      continue;
    }
    if (!Array.isArray(parsed)) yield { file, date, problem: `expected a JSON array of messages, found ${parsed === null ? 'null' : typeof parsed}` };
    else yield { file, date, messages: parsed, invalidBytes, surrogateEscapes: mayHoldLoneSurrogate(text) };
  }
}

/** Throws when an export lacks the files every Slack export has. */
export function assertSlackExportShape(exp: SlackExport): void {
  if (!exp.has('users.json') && !exp.has('org_users.json'))
    throw new SlackExportError(`${exp.origin}: users.json is missing`, SLACK_EXPORT_ERROR.notAnExport, { file: exp.origin, entry: 'users.json' });
}

/**
 * Throws when the export keeps workspaces under `teams/<name>/` (Enterprise Grid): their conversation lists
 * and day files are not read (only `<folder>/<day>.json` is), so migrating the rest would drop every message
 * in them while the run balanced and verified exact.
 */
export function assertNoGridWorkspaces(exp: SlackExport): void {
  const workspaces = new Set<string>();
  for (const path of exp.files) {
    const parts = path.split('/');
    const base = parts[parts.length - 1]!;
    if (parts[0] === 'teams' && parts.length >= 3 && (base in CONVERSATION_FILES || DAY_FILE.test(base))) workspaces.add(`teams/${parts[1]}/`);
  }
  if (workspaces.size === 0) return;
  const names = [...workspaces];
  throw new SlackExportError(
    `${exp.origin}: an Enterprise Grid export; chatport does not map its workspaces (${names.slice(0, 3).join(', ')}${names.length > 3 ? `, and ${names.length - 3} more` : ''}); migrate each workspace folder as its own export, with the org's org_users.json beside its channels.json`,
    SLACK_EXPORT_ERROR.gridUnsupported,
    { file: exp.origin, entry: names[0] },
  );
}
