import { stat } from 'node:fs/promises';
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

/** Writes the index (one item a line) whole or not at all, as the items come. */
export async function writeImportedIndex(file: string, items: AsyncIterable<ImportedItem>): Promise<void> {
  await writeFileAtomicFrom(file, lines(items));
}

/** Lines joined into pieces of about 64 KiB: one write a line would cost a system call each. */
async function* lines(items: AsyncIterable<ImportedItem>): AsyncGenerator<string> {
  let piece = '';
  for await (const { content, ...kept } of items) {
    const indexed: ImportedItem = content === undefined ? kept : { ...kept, contentPrint: messageContentPrint(content) };
    piece += `${stringifyJson(indexed)}\n`;
    if (piece.length < 65_536) continue;
    yield piece;
    piece = '';
  }
  if (piece !== '') yield piece;
}

/** Visits the index's items in order; false when there is no index. */
export async function readImportedIndex(file: string, visit: (item: ImportedItem) => void): Promise<boolean> {
  if (!(await hasImportedIndex(file))) return false;
  await readJournalEvents<ImportedItem>(file, visit);
  return true;
}

export const hasImportedIndex = (file: string): Promise<boolean> => stat(file).then(() => true, () => false);
