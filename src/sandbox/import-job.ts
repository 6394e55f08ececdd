import { randomUUID } from 'node:crypto';
import type { Logger } from '../shared/logger.js';
import type { ImportKind } from '../wire/imports.js';
import type { JobWork } from './jobs.js';
import { KEY_KIND, STORE_IDS, newFileScope, validateItem, type ItemProblem, type ValidItem } from './import-validate.js';
import type { ScannedMessage, ScannedUpload } from './message-upload-scan.js';
import { FileKeys } from './file-keys.js';
import { parseImportFile, type ParsedImport } from './multipart.js';
import { directKey, uploadedKey, type MessageRec, type Store } from './store.js';
import type { WireIds } from './wire-ids.js';

/** Items between yields to the event loop, so polls stay answered. */
const CHUNK = 5000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An import file as the route read it: parsed items, or a scanned messages file (message-upload-scan.ts). */
export type ImportItems = ParsedImport | ScannedUpload;

/** What a job needs besides its items. */
interface JobContext {
  kind: ImportKind;
  store: Store;
  channelId: number | undefined;
  ids: WireIds | undefined;
  /** The refuseKeys fault option; undefined when it refuses none. */
  refuses: ((key: string | undefined) => boolean) | undefined;
}

/**
 * The work of an import job: validate every item (any problem → FAILED, nothing applied, reason
 * logged since the wire has none), then apply the valid ones in file order, skipping applied keys.
 * The job engine runs it once the job's processing time has passed (capacity.ts), under its lock.
 */
export function importWork(
  kind: ImportKind,
  items: ImportItems,
  store: Store,
  logger: Logger,
  flush: () => void,
  channelId?: number,
  ids?: WireIds,
  refuses?: (key: string | undefined) => boolean,
  clock: () => number = Date.now,
): JobWork {
  const job: JobContext = { kind, store, channelId, ids, refuses };
  return (control) =>
    control.exclusive(async () => {
      const run: ApplyRun = { signal: control.signal, flush, clock, logger, jobId: control.jobId, kind };
      let parsed: ParsedImport;
      if ('items' in items) parsed = items;
      else {
        const scanned = await validateScanned(job, items);
        if (scanned) return applyInChunks(run, scanned, (v, now) => applyScanned(store, items.bytes, v, scanned.layout, now));
        // A problem: the general path reads the file again, so the job fails with its exact wording.
        parsed = parseImportFile(items.bytes);
      }
      const checked = await validateAll(job, parsed);
      if ('problem' in checked) return fail(logger, control.jobId, kind, parsed.items.length, checked.problem);
      return applyInChunks(run, checked, (v, now) => applyItem(store, v, now, channelId));
    });
}

/** Validates every parsed item, in file order; stops at the first problem. */
async function validateAll(job: JobContext, parsed: ParsedImport): Promise<{ valid: ValidItem[]; skipped: number } | { problem: ItemProblem }> {
  const { items, unheld } = parsed;
  const scope = newFileScope();
  const valid: ValidItem[] = [];
  let skipped = 0;
  for (let i = 0; i < items.length; i++) {
    if (i === unheld?.index) return { problem: unheld };
    const result = validateItem(job.kind, items[i], i, job.store, scope, job.channelId, job.ids);
    items[i] = undefined; // `valid` holds what is needed from here on
    if (result === 'skip') skipped++;
    else if ('reason' in result) return { problem: result };
    else if (job.refuses?.(result.item.idempotencyKey)) return { problem: { index: i, field: 'idempotencyKey', reason: 'refused (the refuseKeys job option)' } };
    else valid.push(result);
    if (i % CHUNK === CHUNK - 1) await yieldToLoop();
  }
  return { valid, skipped };
}

/**
 * A scanned message that passed the checks, with its channel as the store's id and where the key table
 * found its key absent (applying adds it there without probing again while that slot is still free).
 */
interface ValidScanned {
  message: ScannedMessage;
  channel: number;
  located: number;
}

/** The valid messages of a scanned file, and the key table's layout their places are good for (-1: none). */
interface CheckedScan {
  valid: ValidScanned[];
  skipped: number;
  layout: number;
}

/**
 * The checks validateItem makes on a message the scanner found surely valid (keys, channel, sender,
 * refused keys), without building its problem: undefined on any, and the general path says which.
 */
async function validateScanned(job: JobContext, upload: ScannedUpload): Promise<CheckedScan | undefined> {
  const { store } = job;
  const ids = job.ids ?? STORE_IDS;
  const bytes = upload.bytes;
  const keys = new FileKeys(bytes, upload.messages);
  const layout = store.keys.layout;
  const valid: ValidScanned[] = [];
  let skipped = 0;
  const messages = upload.messages;
  for (let i = 0; i < messages.length; i++) {
    // At the top: a file of skipped items (a whole file sent again) yields too.
    if (i % CHUNK === CHUNK - 1) await yieldToLoop();
    const m = messages[i]!;
    let located = -1;
    if (m.keyStart >= 0) {
      located = store.keys.locateUtf8(bytes, m.keyStart, m.keyEnd, m.keyHash);
      if (located >= 0 && store.keys.targetAt(located).kind !== 'message') return undefined;
      if (located >= 0 || keys.seen(i)) {
        skipped++;
        continue;
      }
      if (job.refuses?.(uploadedKey(bytes, m))) return undefined;
    }
    const channel = ids.toStore(m.channelId);
    if (channel === undefined || !store.channels.has(channel)) return undefined;
    if (m.user !== undefined && !store.usersByName.has(m.user)) return undefined;
    valid.push({ message: m, channel, located });
  }
  // Keys added while it yielded (another request) may have grown the table: then no place holds.
  return { valid, skipped, layout: store.keys.layout === layout ? layout : -1 };
}

/** What applying needs of the job: its abort signal, the journal's flush, the clock, the log. */
interface ApplyRun {
  signal: AbortSignal;
  flush: () => void;
  clock: () => number;
  logger: Logger;
  jobId: number;
  kind: ImportKind;
}

/** Applies validated items in chunks (flushing the journal after each), yielding between them. */
async function applyInChunks<T>(run: ApplyRun, checked: { valid: T[]; skipped: number }, apply: (item: T, now: number) => void): Promise<boolean> {
  const { valid, skipped } = checked;
  for (let i = 0; i < valid.length; i += CHUNK) {
    if (run.signal.aborted) return false;
    const now = run.clock();
    const end = Math.min(i + CHUNK, valid.length);
    for (let j = i; j < end; j++) apply(valid[j]!, now);
    run.flush();
    if (end < valid.length) await yieldToLoop();
  }
  run.logger.info({ jobId: run.jobId, kind: run.kind, items: valid.length + skipped, applied: valid.length, skipped }, 'sandbox import job applied');
  return true;
}

function fail(logger: Logger, jobId: number, kind: ImportKind, total: number, problem: ItemProblem): false {
  logger.warn(
    { jobId, kind, items: total, itemIndex: problem.index, field: problem.field, reason: problem.reason },
    `sandbox import job FAILED: item ${problem.index} field '${problem.field}': ${problem.reason}; nothing applied`,
  );
  return false;
}

/** Applies one scanned message: its body, group tag and properties go to the store as the upload wrote them. */
function applyScanned(store: Store, bytes: Buffer, v: ValidScanned, layout: number, now: number): void {
  const m = v.message;
  const id = store.nextId('message');
  const message: MessageRec = { id, type: m.type, channelId: v.channel, createdTime: now };
  if (m.user !== undefined) message.userId = store.usersByName.get(m.user)!;
  store.addUploadedMessage(message, bytes, m, v.located, layout);
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
