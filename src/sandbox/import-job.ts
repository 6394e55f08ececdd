import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import type { ImportKind } from '../wire/imports.js';
import type { JobWork } from './jobs.js';
import { KEY_KIND, newFileScope, validateItem, type ItemProblem, type ValidItem } from './import-validate.js';
import { directKey, type MessageRec, type Store } from './store.js';
import type { WireIds } from './wire-ids.js';

/** Items between yields to the event loop, so polls stay answered. */
const CHUNK = 5000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The work of an import job: validate every item (any problem → FAILED, nothing applied, reason
 * logged since the wire has none), then apply the valid ones in file order, skipping applied keys.
 * The job engine runs it once the job's processing time has passed (capacity.ts), under its lock.
 */
export function importWork(
  kind: ImportKind,
  items: unknown[],
  store: Store,
  logger: Logger,
  flush: () => void,
  channelId?: number,
  ids?: WireIds,
  refuses: (key: string | undefined) => boolean = () => false,
  clock: () => number = Date.now,
): JobWork {
  return (control) =>
    control.exclusive(async () => {
      const scope = newFileScope();
      const valid: ValidItem[] = [];
      let skipped = 0;
      const total = items.length;
      for (let i = 0; i < total; i++) {
        const result = validateItem(kind, items[i], i, store, scope, channelId, ids);
        items[i] = undefined; // `valid` holds what is needed from here on
        if (result === 'skip') skipped++;
        else if ('reason' in result) return fail(logger, control.jobId, kind, total, result);
        else if (refuses(result.item.idempotencyKey)) return fail(logger, control.jobId, kind, total, { index: i, field: 'idempotencyKey', reason: 'refused (the refuseKeys job option)' });
        else valid.push(result);
        if (i % CHUNK === CHUNK - 1) await yieldToLoop();
      }
      for (let i = 0; i < valid.length; i += CHUNK) {
        const chunk = valid.slice(i, i + CHUNK);
        if (control.signal.aborted) return false;
        const now = clock();
        for (const v of chunk) applyItem(store, v, now, channelId);
        flush();
        if (i + CHUNK < valid.length) await yieldToLoop();
      }
      logger.info({ jobId: control.jobId, kind, items: total, applied: valid.length, skipped }, 'sandbox import job applied');
      return true;
    });
}

function fail(logger: Logger, jobId: number, kind: ImportKind, total: number, problem: ItemProblem): false {
  logger.warn(
    { jobId, kind, items: total, itemIndex: problem.index, field: problem.field, reason: problem.reason },
    `sandbox import job FAILED: item ${problem.index} field '${problem.field}': ${problem.reason}; nothing applied`,
  );
  return false;
}

function rememberKey(store: Store, key: string | undefined, kind: ImportKind, id: number): void {
  if (key !== undefined) store.change({ t: 'key', k: key, kind: KEY_KIND[kind], id });
}

/** Applies one validated item. Messages get createdTime = import time; order within a file is kept by id. */
function applyItem(store: Store, v: ValidItem, now: number, channelId?: number): void {
  switch (v.kind) {
    case 'users': {
      const it = v.item;
      const id = store.nextId('user');
      store.change({
        t: 'user',
        v: {
          id,
          name: it.name,
          displayName: it.displayName,
          type: 'PERSON',
          isGuest: it.isGuest,
          properties: it.properties,
          ...(it.displayPicture ? { displayPictureUrl: it.displayPicture.url } : {}),
          createdTime: now,
        },
      });
      rememberKey(store, it.idempotencyKey, 'users', id);
      return;
    }
    case 'channels': {
      const it = v.item;
      const memberIds = it.members.map((n) => store.usersByName.get(n)!);
      if (it.type === 'DIRECT') {
        const existing = store.directByMembers.get(directKey(memberIds));
        if (existing !== undefined) return rememberKey(store, it.idempotencyKey, 'channels', existing);
      }
      const id = store.nextId('channel');
      const name = it.name ?? randomUUID();
      const creatorId = it.creator === undefined ? undefined : store.usersByName.get(it.creator);
      store.change({
        t: 'channel',
        v: {
          id,
          type: it.type,
          name,
          displayName: it.displayName ?? name,
          ...(creatorId !== undefined ? { creatorId } : {}),
          properties: it.properties ?? {},
          createdTime: now,
        },
      });
      for (const u of memberIds) store.change({ t: 'member', c: id, u, at: now });
      rememberKey(store, it.idempotencyKey, 'channels', id);
      return;
    }
    case 'members': {
      const c = channelId!;
      const u = store.usersByName.get(v.item.username)!;
      if (!store.members.get(c)?.has(u)) store.change({ t: 'member', c, u, at: now });
      rememberKey(store, v.item.idempotencyKey, 'members', c);
      return;
    }
    case 'messages': {
      const it = v.item;
      const id = store.nextId('message');
      // Built field by field (no spreads): this is the hot path of a large messages import.
      // validateItem made channelId the store's id.
      const message: MessageRec = { id, type: it.type, channelId: it.channelId as number, body: it.body, createdTime: now };
      if (it.user !== undefined) message.userId = store.usersByName.get(it.user)!;
      if (it.groupTag !== undefined) message.groupTag = it.groupTag;
      if (it.properties !== undefined) message.properties = it.properties;
      store.change({ t: 'msg', v: message });
      rememberKey(store, it.idempotencyKey, 'messages', id);
      return;
    }
  }
}
