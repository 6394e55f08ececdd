import { IMPORT_ITEM_SCHEMAS, type ImportKind } from '../wire/imports.js';
import type { ChannelImportItem, MemberImportItem, MessageImportItem, UserImportItem } from '../wire/imports.js';
import type { KeyKind, Store } from './store.js';
import { WireIds } from './wire-ids.js';
import { surelyValidMessage } from './fast-accept.js';
import { extremeNumberIn, shownNumber } from '../shared/json-checks/number-range.js';
import { pathAt } from '../shared/json-checks/json-text.js';
import { arrivesAs, DOUBLE_RANGE } from '../shared/double-range.js';

/** Ids as the store has them: no id base. */
export const STORE_IDS = new WireIds();

/**
 * Import validation (decisions.md "Import files"): every item against the strict wire schema, then the
 * cross-checks only the server can make. Any invalid item fails the whole file, so this runs over all
 * items before anything is applied. Items whose idempotencyKey was already applied are skipped.
 */
export type ValidItem =
  | { kind: 'users'; item: UserImportItem }
  | { kind: 'channels'; item: ChannelImportItem }
  | { kind: 'members'; item: MemberImportItem }
  | { kind: 'messages'; item: MessageImportItem };

export interface ItemProblem {
  index: number;
  field: string;
  reason: string;
}

export const KEY_KIND: Record<ImportKind, KeyKind> = { users: 'user', channels: 'channel', members: 'member', messages: 'message' };

/** State carried across the items of one file (names and keys earlier items claim). */
export interface FileScope {
  keys: Set<string>;
  names: Set<string>;
}

export const newFileScope = (): FileScope => ({ keys: new Set(), names: new Set() });

/**
 * The first item of an import file's text holding a number a double cannot hold: `1e400` parses to
 * Infinity (stored and read back as null), `1e-400` to 0. Such an item is invalid, as one with a field the
 * platform would drop is (decisions.md "Import files"): either way the data would change silently.
 * Integers of any length are not among them: the file is read with their exact digits.
 */
export function unheldNumberProblem(text: string): ItemProblem | undefined {
  const found = extremeNumberIn(text);
  if (!found) return undefined;
  const [index, ...field] = pathAt(text, found.at - 1);
  const reason = `the number ${shownNumber(found.token)} is beyond what a double holds (${DOUBLE_RANGE}): it would be stored as ${arrivesAs(found.becomes)}`;
  return { index: index as number, field: field.join('.') || '(item)', reason };
}

/**
 * Checks one item. Returns the parsed item to apply, `'skip'` for an already-applied key, or a problem.
 * `channelId` is the path id of a members import (a store id); `ids` reads the wire ids inside items.
 */
export function validateItem(
  kind: ImportKind,
  raw: unknown,
  index: number,
  store: Store,
  scope: FileScope,
  channelId?: number,
  ids: WireIds = STORE_IDS,
): ValidItem | 'skip' | ItemProblem {
  // Some revisions spell the user flag `guest`; the sandbox accepts both (decisions.md).
  if (kind === 'users' && raw !== null && typeof raw === 'object' && 'guest' in raw && !('isGuest' in raw)) {
    const { guest, ...rest } = raw as Record<string, unknown>;
    raw = { ...rest, isGuest: guest };
  }
  if (!(kind === 'messages' && surelyValidMessage(raw))) {
    const parsed = IMPORT_ITEM_SCHEMAS[kind].safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { index, field: issue.path.join('.') || '(item)', reason: issue.message };
    }
  }
  // The schemas have no defaults or transforms, so a valid item is exactly `raw`: keep it and let zod's
  // copy die young. At a million items this halves what survives into the old generation (GC was the
  // largest cost in bench/sandbox-ingest.ts).
  const item = raw as { idempotencyKey?: string };
  const key = item.idempotencyKey;
  if (key !== undefined) {
    const known = store.keys.get(key);
    if (known && known.kind !== KEY_KIND[kind])
      return { index, field: 'idempotencyKey', reason: `key '${key}' already names a ${known.kind}, not a ${KEY_KIND[kind]}` };
    if (known || scope.keys.has(key)) return 'skip';
    scope.keys.add(key);
  }
  const problem = crossCheck({ kind, item } as ValidItem, index, store, scope, channelId, ids);
  return problem ?? ({ kind, item } as ValidItem);
}

function crossCheck(v: ValidItem, index: number, store: Store, scope: FileScope, channelId: number | undefined, ids: WireIds): ItemProblem | undefined {
  // No closures here: this runs once per item, and per-call closures cost measurably at a million items.
  switch (v.kind) {
    case 'users': {
      const name = v.item.name;
      if (store.usersByName.has(name) || scope.names.has(name))
        return problem(index, 'name', `username '${name}' is already taken under another idempotency key`);
      scope.names.add(name);
      return undefined;
    }
    case 'channels': {
      const it = v.item;
      const missing = it.members.find((name) => !store.usersByName.has(name));
      if (missing !== undefined) return problem(index, 'members', `unknown username '${missing}'`);
      if (it.creator !== undefined && !store.usersByName.has(it.creator)) return problem(index, 'creator', `unknown username '${it.creator}'`);
      // A DIRECT channel whose members already have one is that channel (as POST /channels answers); apply skips it.
      if (it.type === 'DIRECT') return undefined;
      if (it.name !== undefined) {
        if (store.channelsByName.has(it.name) || scope.names.has(it.name))
          return problem(index, 'name', `channel name '${it.name}' is already taken under another idempotency key`);
        scope.names.add(it.name);
      }
      return undefined;
    }
    case 'members': {
      const channel = channelId === undefined ? undefined : store.channels.get(channelId);
      if (!channel) return problem(index, '(path) id', `unknown channel id ${channelId}`);
      if (channel.type === 'DIRECT') return problem(index, '(path) id', `channel ${channelId} is DIRECT; members are managed on group channels only`);
      if (!store.usersByName.has(v.item.username)) return problem(index, 'username', `unknown username '${v.item.username}'`);
      return undefined;
    }
    case 'messages': {
      const storeId = ids.toStore(v.item.channelId);
      if (storeId === undefined || !store.channels.has(storeId)) return problem(index, 'channelId', `unknown channel id ${v.item.channelId}`);
      v.item.channelId = storeId; // from here on (applyItem) the store's id
      if (v.item.user !== undefined && !store.usersByName.has(v.item.user)) return problem(index, 'user', `unknown username '${v.item.user}'`);
      return undefined;
    }
  }
}

function problem(index: number, field: string, reason: string): ItemProblem {
  return { index, field, reason };
}
