import { pathExists } from '../../shared/path-exists.js';
import { stringifyJson } from '../../shared/lossless-json.js';
import { messageContentPrint, type MessageContent } from '../verify/content-print.js';
import { writeFileAtomicFrom } from './atomic-file.js';
import { readJournalEvents } from './journal.js';

/**
 * What a later run needs of a record an earlier run imported: the idempotency key the platform took, and
 * what tells whether the platform still holds the record (its channel and properties). A chunk file's item
 * without its body, attachments and the rest.
 */
export interface ImportedItem {
  idempotencyKey: string;
  /** Messages: the channel's id, in decimal. */
  channelId?: string;
  properties?: Record<string, unknown>;
  /** Channels: the members its record listed (a member removed on the platform since is not added again). */
  members?: unknown[];
  /** Read from a chunk file: what was sent (type, author, body, ...), by reference to the parsed item. */
  content?: MessageContent;
  /** Read from an index: that content's print (content-print.ts), which is all a comparison needs. */
  contentPrint?: string;
}

/** The print of what a run sent under the item's key (from the chunk's item or the index). */
export function sentContentPrint(item: ImportedItem): string | undefined {
  return item.contentPrint ?? (item.content === undefined ? undefined : messageContentPrint(item.content));
}

/** The part of an uploaded item an imported index keeps; undefined for an item without a key. */
export function importedItemOf(item: Record<string, unknown>): ImportedItem | undefined {
  const { idempotencyKey, channelId, properties, members } = item;
  if (typeof idempotencyKey !== 'string') return undefined;
  const kept: ImportedItem = { idempotencyKey };
  if (channelId !== undefined && channelId !== null) kept.channelId = String(channelId as string | number | bigint);
  if (properties !== null && typeof properties === 'object') kept.properties = properties as Record<string, unknown>;
  if (Array.isArray(members)) kept.members = members;
  const { type, user, body, groupTag } = item;
  kept.content = { type, user, body, groupTag, properties };
  return kept;
}

/**
 * Writes the index whole or not at all, as the items come: a line is a JSON array of up to 1,000 items, each
 * `[idempotencyKey, channelId or null, properties or null, members or null, content print or null]`. One parse a thousand items, and no
 * field names repeated: a line an item took about 0.8 of the chunk files' reading time (BENCHMARKS.md).
 */
export async function writeImportedIndex(file: string, items: AsyncIterable<ImportedItem>): Promise<void> {
  await writeFileAtomicFrom(file, lines(items));
}

const ITEMS_A_LINE = 1000;

async function* lines(items: AsyncIterable<ImportedItem>): AsyncGenerator<string> {
  let line: unknown[] = [];
  for await (const item of items) {
    line.push(tupleOf(item));
    if (line.length < ITEMS_A_LINE) continue;
    yield `${stringifyJson(line)}\n`;
    line = [];
  }
  if (line.length > 0) yield `${stringifyJson(line)}\n`;
}

type ItemTuple = [string, string | null, Record<string, unknown> | null, unknown[] | null, string | null];

/** The sent content is kept as its print only (content-print.ts): enough to tell a changed source from a deletion. */
function tupleOf({ idempotencyKey, channelId, properties, members, content, contentPrint }: ImportedItem): ItemTuple {
  const print = contentPrint ?? (content === undefined ? undefined : messageContentPrint(content));
  return [idempotencyKey, channelId ?? null, properties ?? null, members ?? null, print ?? null];
}

function itemOf([idempotencyKey, channelId, properties, members, contentPrint]: ItemTuple): ImportedItem {
  const item: ImportedItem = { idempotencyKey };
  if (channelId !== null) item.channelId = channelId;
  if (properties !== null) item.properties = properties;
  if (members !== null && members !== undefined) item.members = members;
  if (contentPrint !== null && contentPrint !== undefined) item.contentPrint = contentPrint;
  return item;
}

/** Visits the index's items in order; false when there is no index. */
export async function readImportedIndex(file: string, visit: (item: ImportedItem) => void): Promise<boolean> {
  if (!(await hasImportedIndex(file))) return false;
  await readJournalEvents<ItemTuple[]>(file, (line) => {
    for (const tuple of line) visit(itemOf(tuple));
  });
  return true;
}

export const hasImportedIndex = pathExists;
